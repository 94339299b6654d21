package main

import (
	"context"
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// newNode returns a fake node; the index gives it a unique node address
// outside every pod range.
func newNode(name string, index int) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"podnetwork.io/demo": "true"}},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("172.18.%d.%d", index/250, index%250+1)},
		}},
	}
}

// addNodes creates count nodes named prefix-<i> from index from on.
func (d *demo) addNodes(ctx context.Context, prefix string, from, count int) error {
	for i := from; i < from+count; i++ {
		if err := d.admin.Create(ctx, newNode(fmt.Sprintf("%s-%02d", prefix, i), i)); err != nil {
			return fmt.Errorf("creating node: %w", err)
		}
	}
	return nil
}

// waitAllocated waits until at least n nodes have podCIDRs.
func (d *demo) waitAllocated(ctx context.Context, n int) error {
	return waitFor(fmt.Sprintf("%d nodes with podCIDRs", n), stepTimeout, func(ctx context.Context) (bool, error) {
		var nodes corev1.NodeList
		if err := d.admin.List(ctx, &nodes); err != nil {
			return false, err
		}
		got := 0
		for _, n := range nodes.Items {
			if len(n.Spec.PodCIDRs) > 0 {
				got++
			}
		}
		return got >= n, nil
	})
}

// holders lists the nodes whose podCIDRs lie in prefix.
func (d *demo) holders(ctx context.Context, prefix string) ([]string, error) {
	p := netip.MustParsePrefix(prefix)
	var nodes corev1.NodeList
	if err := d.admin.List(ctx, &nodes); err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	var out []string
	for _, n := range nodes.Items {
		for _, c := range n.Spec.PodCIDRs {
			if q, err := netip.ParsePrefix(c); err == nil && p.Overlaps(q) {
				out = append(out, n.Name)
			}
		}
	}
	return out, nil
}

func (d *demo) podNetwork(ctx context.Context) (*v1alpha1.PodNetwork, error) {
	pn := &v1alpha1.PodNetwork{}
	if err := d.admin.Get(ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, pn); err != nil {
		return nil, fmt.Errorf("reading the PodNetwork: %w", err)
	}
	return pn, nil
}

// rangeStatus returns the status of a tracked range, nil when untracked.
func (d *demo) rangeStatus(ctx context.Context, name string) (*v1alpha1.RangeStatus, error) {
	pn, err := d.podNetwork(ctx)
	if err != nil {
		return nil, err
	}
	for i := range pn.Status.Ranges {
		if pn.Status.Ranges[i].Name == name {
			return &pn.Status.Ranges[i], nil
		}
	}
	return nil, nil
}

func (d *demo) waitPhase(ctx context.Context, name string, phase v1alpha1.RangePhase) error {
	return waitFor(fmt.Sprintf("%q to be %s", name, phase), stepTimeout, func(ctx context.Context) (bool, error) {
		pn, err := d.podNetwork(ctx)
		if err != nil {
			return false, err
		}
		// Every range seen Active feeds the invariant checker.
		d.checker.ObserveRanges(pn)
		for _, rs := range pn.Status.Ranges {
			if rs.Name == name {
				return rs.Phase == phase, nil
			}
		}
		return false, nil
	})
}

// editRanges changes spec.ranges as an admin would with kubectl edit.
func (d *demo) editRanges(ctx context.Context, edit func([]v1alpha1.PodCIDRRange) []v1alpha1.PodCIDRRange) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pn, err := d.podNetwork(ctx)
		if err != nil {
			return err
		}
		pn.Spec.Ranges = edit(pn.Spec.Ranges)
		return d.admin.Update(ctx, pn)
	})
	if err != nil {
		return fmt.Errorf("editing the PodNetwork: %w", err)
	}
	return nil
}

// table prints the range table.
func (d *demo) table(ctx context.Context) {
	if pn, err := d.podNetwork(ctx); err == nil {
		printRanges(pn)
	}
}
