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
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/declared"
)

// TestConfigOfDeclaredView: a range the autoscaler declared (not in
// spec.ranges) is a candidate with the nodeSelector of its declaration, once
// the view joins it to the PodNetwork; without the view it is not.
func TestConfigOfDeclaredView(t *testing.T) {
	zoneA := terms(exprs(req("zone", corev1.NodeSelectorOpIn, "a")))
	pn := podNetwork().rng("pods", "10.244.0.0/20", v1alpha1.RangePhaseActive).obj()
	pn.Status.Ranges = append(pn.Status.Ranges, v1alpha1.RangeStatus{Name: "p-1", CIDR: "10.244.0.0/19", NodeMaskSize: 24, Phase: v1alpha1.RangePhaseActive})
	set := &v1alpha1.AutoscaledRangeSet{Spec: &v1alpha1.AutoscaledRangeSetSpec{Ranges: []v1alpha1.AutoscaledRange{
		{Name: "p-1", Pool: "p", CIDR: "10.244.0.0/19", NodeMaskSize: 24, NodeSelector: zoneA, AddedTime: &metav1.Time{Time: t0}},
	}}}

	if c := NewConfig(pn); len(c.Candidates) != 0 {
		t.Errorf("without the view: candidates %v, want none (p-1 is not declared, pods is inside it)", c.Candidates)
	}
	c := NewConfig(declared.View(pn, set))
	if len(c.Candidates) != 1 || c.Candidates[0].Name != "p-1" || c.Candidates[0].Selector == nil {
		t.Fatalf("candidates %+v, want p-1 alone with its selector", c.Candidates)
	}
	if m, _ := c.Candidates[0].Selector.Match("n", map[string]string{"zone": "b"}); m {
		t.Error("p-1's selector matches a node of zone b")
	}
}
