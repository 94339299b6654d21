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
	"net/netip"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// API is a client bound to a context, with the getters specs poll. The
// getters return the zero value when the object cannot be read or the item
// is absent, so Eventually keeps polling and a failed assertion shows what
// was last seen; use them as Eventually(api.Phase).WithArguments("a").
type API struct {
	client.WithWatch
	Ctx context.Context
}

// NewAPI binds c to ctx.
func NewAPI(ctx context.Context, c client.WithWatch) API { return API{WithWatch: c, Ctx: ctx} }

// PodNetwork reads the PodNetwork singleton.
func (a API) PodNetwork() (*v1alpha1.PodNetwork, error) {
	pn := &v1alpha1.PodNetwork{}
	if err := a.Get(a.Ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, pn); err != nil {
		return nil, fmt.Errorf("reading the PodNetwork: %w", err)
	}
	return pn, nil
}

// EditRanges changes spec.ranges as an admin would with kubectl edit,
// retrying on conflicts.
func (a API) EditRanges(edit func([]v1alpha1.PodCIDRRange) []v1alpha1.PodCIDRRange) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pn, err := a.PodNetwork()
		if err != nil {
			return err
		}
		pn.Spec.Ranges = edit(pn.Spec.Ranges)
		return a.Update(a.Ctx, pn)
	})
}

// RangeStatus returns the status of a tracked range.
func (a API) RangeStatus(name string) v1alpha1.RangeStatus {
	if pn, err := a.PodNetwork(); err == nil {
		if rs := pn.Status.FindRange(name); rs != nil {
			return *rs
		}
	}
	return v1alpha1.RangeStatus{}
}

// Phase returns the phase of a range, "" while it is not tracked.
func (a API) Phase(name string) v1alpha1.RangePhase { return a.RangeStatus(name).Phase }

// Usage returns the block usage NodeIPAM reports for a range.
func (a API) Usage(name string) v1alpha1.RangeUsage { return a.RangeStatus(name).Usage }

// Condition returns a condition of the PodNetwork, nil when absent.
func (a API) Condition(conditionType string) *metav1.Condition {
	if pn, err := a.PodNetwork(); err == nil {
		return meta.FindStatusCondition(pn.Status.Conditions, conditionType)
	}
	return nil
}

// Consumer returns a PodNetworkConsumer, an empty one while it does not
// exist.
func (a API) Consumer(name string) *v1alpha1.PodNetworkConsumer {
	c := &v1alpha1.PodNetworkConsumer{}
	if err := a.Get(a.Ctx, client.ObjectKey{Name: name}, c); err != nil {
		return &v1alpha1.PodNetworkConsumer{}
	}
	return c
}

// Ack returns a consumer's acknowledgement of a range, nil when none.
func (a API) Ack(consumer, rangeName string) *v1alpha1.ConsumerRangeStatus {
	for _, ack := range a.Consumer(consumer).Status.Ranges {
		if ack.Name == rangeName {
			return &ack
		}
	}
	return nil
}

// ConsumerReady returns a consumer's Ready condition, empty when absent.
func (a API) ConsumerReady(name string) metav1.Condition {
	if c := meta.FindStatusCondition(a.Consumer(name).Status.Conditions, v1alpha1.ConsumerReadyCondition); c != nil {
		return *c
	}
	return metav1.Condition{}
}

// Events returns the events about objects of kind, in any namespace.
func (a API) Events(kind string) []eventsv1.Event {
	var list eventsv1.EventList
	if err := a.List(a.Ctx, &list); err != nil {
		return nil
	}
	var out []eventsv1.Event
	for _, ev := range list.Items {
		if ev.Regarding.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

// EventReasons returns "<type>/<reason>" of every event about objects of
// kind.
func (a API) EventReasons(kind string) []string {
	var out []string
	for _, ev := range a.Events(kind) {
		out = append(out, ev.Type+"/"+ev.Reason)
	}
	return out
}

// Nodes lists the nodes.
func (a API) Nodes() []corev1.Node {
	var nodes corev1.NodeList
	if err := a.List(a.Ctx, &nodes); err != nil {
		return nil
	}
	return nodes.Items
}

// NodesWithPodCIDRs counts the nodes that have podCIDRs.
func (a API) NodesWithPodCIDRs() int {
	n := 0
	for _, node := range a.Nodes() {
		if len(node.Spec.PodCIDRs) > 0 {
			n++
		}
	}
	return n
}

// Holders returns the nodes with a podCIDR that overlaps prefix.
func (a API) Holders(prefix string) []string {
	p := netip.MustParsePrefix(prefix)
	var out []string
	for _, n := range a.Nodes() {
		for _, c := range n.Spec.PodCIDRs {
			if q, err := netip.ParsePrefix(c); err == nil && p.Overlaps(q) {
				out = append(out, n.Name)
			}
		}
	}
	return out
}

// GetPodNetwork, in a spec, reads the PodNetwork singleton and fails the
// spec when it cannot.
func (a API) GetPodNetwork() *v1alpha1.PodNetwork {
	ginkgo.GinkgoHelper()
	pn, err := a.PodNetwork()
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return pn
}
