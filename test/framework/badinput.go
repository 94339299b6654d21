/*
Copyright 2026 The podnetwork-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package framework

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// Malformed objects the apiserver lets through, written the way a careless
// admin or a hostile client would, for the bad-input suite and for chaos
// storms. docs/operations.md ("Bad input") says what the operator does with
// each and what the admin sees.

// HandEditManager is the field manager status edits are written under, as
// kubectl edit --subresource=status writes them.
const HandEditManager = "kubectl-edit"

// Injection is one malformed write.
type Injection struct {
	// Name identifies it in logs.
	Name string
	// Holds says what the operator keeps blocked, by design, until an admin
	// acts; empty when the operator recovers by itself.
	Holds string
	// Inject writes it through c and says what it wrote.
	Inject func(ctx context.Context, c client.Client) (string, error)
}

// Injections returns the malformed writes that need nothing but the API:
// hand edits of the status of PodNetwork "default" (on its first tracked
// range), a node and a consumer with malformed values, named prefix-....
// Adapter configurations are broken with SetConfigMapKey and
// KubeProxyClusterCIDRWithSpace, which need to know where they are.
func Injections(prefix string) []Injection {
	return []Injection{
		{Name: "phase-rewritten", Inject: func(ctx context.Context, c client.Client) (string, error) {
			return EditFirstRange(ctx, c, func(rs *v1alpha1.RangeStatus) { rs.Phase = otherPhase(rs.Phase) })
		}},
		{Name: "cidr-garbage", Holds: "a range no longer in the spec stays Draining (invalidReason InvalidCIDR) until its entry is removed from status by hand",
			Inject: func(ctx context.Context, c client.Client) (string, error) {
				return EditFirstRange(ctx, c, func(rs *v1alpha1.RangeStatus) { rs.CIDR = "not-a-cidr" })
			}},
		{Name: "entry-added", Inject: func(ctx context.Context, c client.Client) (string, error) {
			return AddStatusRange(ctx, c, v1alpha1.RangeStatus{Name: prefix + "-handmade", CIDR: "198.19.254.0/24", NodeMaskSize: 26, Phase: v1alpha1.RangePhaseActive})
		}},
		{Name: "entry-removed", Holds: "a range no longer in the spec is forgotten: nodes in it count as foreign nodes",
			Inject: func(ctx context.Context, c client.Client) (string, error) { return RemoveFirstStatusRange(ctx, c) }},
		{Name: "quarantine-garbage", Inject: func(ctx context.Context, c client.Client) (string, error) {
			future := ptr.To(metav1.NewTime(time.Now().Add(1000 * time.Hour)))
			return AddQuarantine(ctx, c, v1alpha1.QuarantinedBlock{CIDR: "not-a-cidr", FreedAt: future},
				v1alpha1.QuarantinedBlock{CIDR: "198.19.254.0/26", FreedAt: future})
		}},
		{Name: "usage-lie", Inject: func(ctx context.Context, c client.Client) (string, error) {
			return EditFirstRange(ctx, c, func(rs *v1alpha1.RangeStatus) {
				rs.Usage = v1alpha1.NewRangeUsage(1, 1<<40, 1<<40, 0)
			})
		}},
		{Name: "conditions-flood", Inject: func(ctx context.Context, c client.Client) (string, error) { return FloodConditions(ctx, c) }},
		{Name: "node-bad-addresses", Holds: "Degraded=MalformedInput names the node until it is fixed or deleted",
			Inject: func(ctx context.Context, c client.Client) (string, error) {
				return CreateNodeWithBadAddresses(ctx, c, prefix+"-bad-addresses")
			}},
		{Name: "consumer-bad-acks", Holds: "Degraded=MalformedInput names the consumer until it is fixed or deleted",
			Inject: func(ctx context.Context, c client.Client) (string, error) {
				return CreateConsumerWithBadAcks(ctx, c, prefix+"-bad-acks")
			}},
	}
}

// EditStatus changes the status of PodNetwork "default" with edit, which
// says what it changed, by an update under HandEditManager, retrying on
// conflicts. An empty description leaves the status alone.
func EditStatus(ctx context.Context, c client.Client, edit func(*v1alpha1.PodNetworkStatus) string) (string, error) {
	var what string
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pn := &v1alpha1.PodNetwork{}
		if err := c.Get(ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, pn); err != nil {
			return err
		}
		if what = edit(&pn.Status); what == "" {
			return nil
		}
		return c.Status().Update(ctx, pn, client.FieldOwner(HandEditManager))
	})
	if err != nil {
		return "", fmt.Errorf("editing the PodNetwork status by hand (%s): %w", what, err)
	}
	return what, nil
}

// EditRange changes the status entry of range name with edit.
func EditRange(ctx context.Context, c client.Client, name string, edit func(*v1alpha1.RangeStatus)) (string, error) {
	return EditStatus(ctx, c, func(s *v1alpha1.PodNetworkStatus) string {
		rs := s.FindRange(name)
		if rs == nil {
			return ""
		}
		before := fmt.Sprintf("%+v", *rs)
		edit(rs)
		return fmt.Sprintf("status.ranges{%s}: %s -> %+v", name, before, *rs)
	})
}

// EditFirstRange changes the status entry of the first tracked range, by
// name; it changes nothing when no range is tracked.
func EditFirstRange(ctx context.Context, c client.Client, edit func(*v1alpha1.RangeStatus)) (string, error) {
	pn := &v1alpha1.PodNetwork{}
	if err := c.Get(ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, pn); err != nil {
		return "", err
	}
	if len(pn.Status.Ranges) == 0 {
		return "no range is tracked; nothing edited", nil
	}
	names := make([]string, 0, len(pn.Status.Ranges))
	for _, rs := range pn.Status.Ranges {
		names = append(names, rs.Name)
	}
	slices.Sort(names)
	return EditRange(ctx, c, names[0], edit)
}

// AddStatusRange adds an entry to status.ranges by hand.
func AddStatusRange(ctx context.Context, c client.Client, rs v1alpha1.RangeStatus) (string, error) {
	if rs.PhaseSince.IsZero() {
		rs.PhaseSince = ptr.To(metav1.Now())
	}
	return EditStatus(ctx, c, func(s *v1alpha1.PodNetworkStatus) string {
		if s.FindRange(rs.Name) != nil {
			return ""
		}
		s.Ranges = append(s.Ranges, rs)
		return fmt.Sprintf("added status.ranges{%s} %s %s", rs.Name, rs.CIDR, rs.Phase)
	})
}

// RemoveStatusRange removes the entry of range name from status.ranges by
// hand, the one edit that leaves no trace.
func RemoveStatusRange(ctx context.Context, c client.Client, name string) (string, error) {
	return EditStatus(ctx, c, func(s *v1alpha1.PodNetworkStatus) string {
		i := slices.IndexFunc(s.Ranges, func(rs v1alpha1.RangeStatus) bool { return rs.Name == name })
		if i < 0 {
			return ""
		}
		s.Ranges = slices.Delete(s.Ranges, i, i+1)
		return fmt.Sprintf("removed status.ranges{%s}", name)
	})
}

// RemoveFirstStatusRange removes the entry of the first tracked range.
func RemoveFirstStatusRange(ctx context.Context, c client.Client) (string, error) {
	return EditStatus(ctx, c, func(s *v1alpha1.PodNetworkStatus) string {
		if len(s.Ranges) == 0 {
			return ""
		}
		name := s.Ranges[0].Name
		s.Ranges = s.Ranges[1:]
		return fmt.Sprintf("removed status.ranges{%s}", name)
	})
}

// AddQuarantine appends entries to status.quarantine by hand.
func AddQuarantine(ctx context.Context, c client.Client, entries ...v1alpha1.QuarantinedBlock) (string, error) {
	return EditStatus(ctx, c, func(s *v1alpha1.PodNetworkStatus) string {
		s.Quarantine = append(s.Quarantine, entries...)
		return fmt.Sprintf("added %+v to status.quarantine", entries)
	})
}

// FloodConditions fills status.conditions up to the CRD's 16 with
// conditions of made-up types.
func FloodConditions(ctx context.Context, c client.Client) (string, error) {
	return EditStatus(ctx, c, func(s *v1alpha1.PodNetworkStatus) string {
		added := 0
		for i := 0; len(s.Conditions) < 16; i++ {
			s.Conditions = append(s.Conditions, metav1.Condition{Type: fmt.Sprintf("HandMade%02d", i), Status: metav1.ConditionTrue,
				Reason: "HandMade", Message: "written by hand", LastTransitionTime: metav1.Now()})
			added++
		}
		if added == 0 {
			return ""
		}
		return fmt.Sprintf("added %d conditions of made-up types", added)
	})
}

// CreateNodeWithBadAddresses creates a node whose InternalIP is not an
// address and whose ExternalIP is in the legacy format (leading zeros) the
// apiserver never validated for addresses.
func CreateNodeWithBadAddresses(ctx context.Context, c client.Client, name string) (string, error) {
	n := Node(name).Obj()
	if err := c.Create(ctx, n); err != nil {
		return "", fmt.Errorf("creating node %s: %w", name, err)
	}
	// NodeIPAM may write the node's podCIDRs meanwhile.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(n), n); err != nil {
			return err
		}
		n.Status.Addresses = []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: "not-an-address"},
			{Type: corev1.NodeExternalIP, Address: "198.019.0.5"},
		}
		return c.Status().Update(ctx, n)
	})
	if err != nil {
		return "", fmt.Errorf("setting the addresses of node %s: %w", name, err)
	}
	return fmt.Sprintf("node %s with InternalIP %q and ExternalIP %q", name, "not-an-address", "198.019.0.5"), nil
}

// CreateConsumerWithBadAcks creates a consumer that is not required and
// whose status holds what the CRD lets through but no correct consumer
// writes: acknowledgements with cidrs that do not parse, of ranges that do
// not exist, timed in the future, with messages of 1024 two-byte
// characters, 128 of them.
func CreateConsumerWithBadAcks(ctx context.Context, c client.Client, name string) (string, error) {
	pnc := Consumer(name).Required(false).Obj()
	if err := c.Create(ctx, pnc); err != nil {
		return "", fmt.Errorf("creating PodNetworkConsumer %s: %w", name, err)
	}
	future := ptr.To(metav1.NewTime(time.Now().Add(1000 * time.Hour)))
	long := strings.Repeat("é", 1024)
	var acks []v1alpha1.ConsumerRangeStatus
	for i := range 128 {
		ack := v1alpha1.ConsumerRangeStatus{Name: fmt.Sprintf("no-such-range-%03d", i), CIDR: "198.19.0.0/16", Phase: v1alpha1.RangePhaseActive,
			Result: v1alpha1.AckRejected, Message: long, LastTransitionTime: future}
		if i%2 == 0 {
			ack.CIDR = "not a cidr"
		}
		acks = append(acks, ack)
	}
	// The operator labels the consumer as soon as it sees it.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(pnc), pnc); err != nil {
			return err
		}
		pnc.Status.Ranges = acks
		return c.Status().Update(ctx, pnc, client.FieldOwner(name))
	})
	if err != nil {
		return "", fmt.Errorf("writing the status of PodNetworkConsumer %s: %w", name, err)
	}
	return fmt.Sprintf("PodNetworkConsumer %s (not required) with 128 acknowledgements of unknown ranges, half with cidr %q", name, "not a cidr"), nil
}

// CreateServiceCIDR creates a ServiceCIDR; the apiserver accepts any
// canonical prefix, 0.0.0.0/0 included.
func CreateServiceCIDR(ctx context.Context, c client.Client, name string, cidrs ...string) (string, error) {
	s := &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: networkingv1.ServiceCIDRSpec{CIDRs: cidrs}}
	if err := c.Create(ctx, s); err != nil {
		return "", fmt.Errorf("creating ServiceCIDR %s: %w", name, err)
	}
	return fmt.Sprintf("ServiceCIDR %s %v", name, cidrs), nil
}

// SetConfigMapKey sets one key of a ConfigMap, for example an adapter's
// configuration to garbage.
func SetConfigMapKey(ctx context.Context, c client.Client, nn types.NamespacedName, key, value string) (string, error) {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cm := &corev1.ConfigMap{}
		if err := c.Get(ctx, nn, cm); err != nil {
			return err
		}
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[key] = value
		return c.Update(ctx, cm)
	})
	if err != nil {
		return "", fmt.Errorf("setting %s[%s]: %w", nn, key, err)
	}
	return fmt.Sprintf("%s[%s] = %.60q", nn, key, value), nil
}

// KubeProxyClusterCIDRWithSpace rewrites the clusterCIDR line of
// kube-proxy's configuration (ConfigMap nn, key) as a person writes lists,
// with a space after the comma, which kube-proxy refuses.
func KubeProxyClusterCIDRWithSpace(ctx context.Context, c client.Client, nn types.NamespacedName, key, v4, v6 string) (string, error) {
	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, nn, cm); err != nil {
		return "", fmt.Errorf("reading %s: %w", nn, err)
	}
	lines := strings.Split(cm.Data[key], "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "clusterCIDR:") })
	if i < 0 {
		return "", fmt.Errorf("%s[%s] has no clusterCIDR line", nn, key)
	}
	lines[i] = fmt.Sprintf("clusterCIDR: %q", v4+", "+v6)
	return SetConfigMapKey(ctx, c, nn, key, strings.Join(lines, "\n"))
}

// otherPhase is the phase a hand edit rewrites p to: the one that would do
// the most harm if believed.
func otherPhase(p v1alpha1.RangePhase) v1alpha1.RangePhase {
	switch p {
	case v1alpha1.RangePhasePending:
		return v1alpha1.RangePhaseActive // allocate before consumers accepted
	case v1alpha1.RangePhaseDraining:
		return v1alpha1.RangePhaseReleased // forget while nodes hold blocks
	case v1alpha1.RangePhaseActive:
		return v1alpha1.RangePhaseReleased
	default:
		return v1alpha1.RangePhaseActive
	}
}
