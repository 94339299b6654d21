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

package nodeipam

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

var (
	mp = netip.MustParsePrefix
	t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
)

// pnBuilder builds PodNetworks for tests: spec and status ranges together.
type pnBuilder struct{ pn v1alpha1.PodNetwork }

func podNetwork() *pnBuilder {
	return &pnBuilder{pn: v1alpha1.PodNetwork{ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PodNetworkName}}}
}

// rng adds a range in spec (unless phase is Draining or Released) and in
// status with the given phase.
func (b *pnBuilder) rng(name, cidr string, phase v1alpha1.RangePhase, opts ...func(*v1alpha1.PodCIDRRange, *v1alpha1.RangeStatus)) *pnBuilder {
	sr := v1alpha1.PodCIDRRange{Name: name, CIDR: cidr}
	rs := v1alpha1.RangeStatus{Name: name, CIDR: cidr, Phase: phase}
	p := mp(cidr)
	rs.NodeMaskSize = v1alpha1.DefaultNodeMaskSize(p)
	for _, o := range opts {
		o(&sr, &rs)
	}
	if phase != v1alpha1.RangePhaseDraining && phase != v1alpha1.RangePhaseReleased {
		b.pn.Spec.Ranges = append(b.pn.Spec.Ranges, sr)
	}
	b.pn.Status.Ranges = append(b.pn.Status.Ranges, rs)
	return b
}

func (b *pnBuilder) policy(delaySeconds int32, when v1alpha1.WhenExhaustedPolicy) *pnBuilder {
	b.pn.Spec.Allocation = &v1alpha1.AllocationPolicy{RecycleDelaySeconds: ptr.To(delaySeconds), WhenExhausted: when}
	return b
}

func (b *pnBuilder) obj() *v1alpha1.PodNetwork { return &b.pn }

// handEdited records in managedFields that kubectl edit set fields of the
// status entry of range name, as the apiserver would.
func (b *pnBuilder) handEdited(name string, fields ...string) *pnBuilder {
	var fs []string
	for _, f := range fields {
		fs = append(fs, fmt.Sprintf(`"f:%s":{}`, f))
	}
	raw := fmt.Sprintf(`{"f:status":{"f:ranges":{"k:{\"name\":\"%s\"}":{%s}}}}`, name, strings.Join(fs, ","))
	b.pn.ManagedFields = append(b.pn.ManagedFields, metav1.ManagedFieldsEntry{Manager: "kubectl-edit", Operation: metav1.ManagedFieldsOperationUpdate,
		Subresource: "status", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(raw)}})
	return b
}

func mask(n int32) func(*v1alpha1.PodCIDRRange, *v1alpha1.RangeStatus) {
	return func(sr *v1alpha1.PodCIDRRange, rs *v1alpha1.RangeStatus) {
		sr.NodeMaskSize = n
		rs.NodeMaskSize = n
	}
}

func selector(sel *corev1.NodeSelector) func(*v1alpha1.PodCIDRRange, *v1alpha1.RangeStatus) {
	return func(sr *v1alpha1.PodCIDRRange, _ *v1alpha1.RangeStatus) { sr.NodeSelector = sel }
}

func invalid(reason v1alpha1.RangeInvalidReason) func(*v1alpha1.PodCIDRRange, *v1alpha1.RangeStatus) {
	return func(_ *v1alpha1.PodCIDRRange, rs *v1alpha1.RangeStatus) { rs.InvalidReason = reason }
}
