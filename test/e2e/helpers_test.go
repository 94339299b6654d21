//go:build e2e

package e2e

import (
	"fmt"
	"net/netip"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/retry"
	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/test/invariants"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func newNode(name string, index int) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("172.18.%d.%d", index/250, index%250+1)},
		}},
	}
}

func addNodes(prefix string, from, count int) {
	for i := from; i < from+count; i++ {
		Expect(admin.Create(ctx, newNode(fmt.Sprintf("%s-%02d", prefix, i), i))).To(Succeed())
	}
}

func allocatedNodes() int {
	var nodes corev1.NodeList
	Expect(admin.List(ctx, &nodes)).To(Succeed())
	n := 0
	for _, node := range nodes.Items {
		if len(node.Spec.PodCIDRs) > 0 {
			n++
		}
	}
	return n
}

func holdersOf(prefix string) []string {
	p := netip.MustParsePrefix(prefix)
	var nodes corev1.NodeList
	Expect(admin.List(ctx, &nodes)).To(Succeed())
	var out []string
	for _, n := range nodes.Items {
		for _, c := range n.Spec.PodCIDRs {
			if q, err := netip.ParsePrefix(c); err == nil && p.Overlaps(q) {
				out = append(out, n.Name)
			}
		}
	}
	return out
}

func getPodNetwork() *v1alpha1.PodNetwork {
	pn := &v1alpha1.PodNetwork{}
	Expect(admin.Get(ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, pn)).To(Succeed())
	return pn
}

func rangePhase(name string) func() v1alpha1.RangePhase {
	return func() v1alpha1.RangePhase {
		pn := &v1alpha1.PodNetwork{}
		if err := admin.Get(ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, pn); err != nil {
			return ""
		}
		for _, rs := range pn.Status.Ranges {
			if rs.Name == name {
				return rs.Phase
			}
		}
		return ""
	}
}

func rangeStatus(name string) v1alpha1.RangeStatus {
	for _, rs := range getPodNetwork().Status.Ranges {
		if rs.Name == name {
			return rs
		}
	}
	return v1alpha1.RangeStatus{}
}

func editRanges(edit func([]v1alpha1.PodCIDRRange) []v1alpha1.PodCIDRRange) {
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pn := getPodNetwork()
		pn.Spec.Ranges = edit(pn.Spec.Ranges)
		return admin.Update(ctx, pn)
	})).To(Succeed())
}

// watchRanges feeds every PodNetwork change to the invariant checker until
// the suite ends, so no range that was ever Active is missed.
func watchRanges(checker *invariants.Checker) {
	wc, err := client.NewWithWatch(testEnv.Config, client.Options{Scheme: controllers.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	w, err := wc.Watch(ctx, &v1alpha1.PodNetworkList{})
	Expect(err).NotTo(HaveOccurred())
	go func() {
		defer GinkgoRecover()
		defer w.Stop()
		for ev := range w.ResultChan() {
			if pn, ok := ev.Object.(*v1alpha1.PodNetwork); ok && ev.Type != watch.Error {
				checker.ObserveRanges(pn)
			}
		}
	}()
}
