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

package cli

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// DrainAssistView is drain assist's progress in Status: what
// status.drainAssist says, which only drain assist writes (absent while
// its mode is Off).
type DrainAssistView struct {
	Mode     v1alpha1.DrainAssistMode `json:"mode"`
	Handover v1alpha1.DrainHandover   `json:"handover,omitempty"`
	// MaxUnavailable is spec.drainAssist.maxUnavailable resolved against
	// Total.
	MaxUnavailable int32 `json:"maxUnavailable,omitempty"`
	// Total counts the nodes left to replace: those holding a block in a
	// Draining range. The others count them by what drain assist does:
	// not started yet, draining, blocked, handed over (waiting to be
	// replaced), skipped.
	Total      int32 `json:"total"`
	Waiting    int32 `json:"waiting"`
	Draining   int32 `json:"draining"`
	Blocked    int32 `json:"blocked"`
	HandedOver int32 `json:"handedOver"`
	Skipped    int32 `json:"skipped"`
	// Message sums the counts up in one line.
	Message string `json:"message,omitempty"`
	// Complete is its condition Complete, nil before it wrote one.
	Complete *ConditionView `json:"complete,omitempty"`
	// Nodes are the nodes it reports on (at most 64): those it works on,
	// then those it skips, then (Recommend) those it would start next.
	Nodes []DrainNodeView `json:"nodes"`
}

// DrainNodeView is drain assist's report on one node.
type DrainNodeView struct {
	Name    string                   `json:"name"`
	State   v1alpha1.DrainNodeState  `json:"state"`
	Reason  v1alpha1.DrainNodeReason `json:"reason,omitempty"`
	Message string                   `json:"message,omitempty"`
	// StartTime is when drain assist cordoned the node, StartedSeconds how
	// long ago that was.
	StartTime      *time.Time `json:"startTime,omitempty"`
	StartedSeconds *int64     `json:"startedSeconds,omitempty"`
	// PodsLeft counts the pods left to evict, or evicted and terminating.
	PodsLeft *int32   `json:"podsLeft,omitempty"`
	Ranges   []string `json:"ranges,omitempty"`
}

// drainAssistView reads status.drainAssist at now; nil when there is none.
func drainAssistView(pn *v1alpha1.PodNetwork, now time.Time) *DrainAssistView {
	st := pn.Status.DrainAssist
	if st == nil {
		return nil
	}
	v := &DrainAssistView{
		Mode: st.Mode, Handover: st.Handover, MaxUnavailable: st.MaxUnavailable,
		Total: ptr.Deref(st.Total, 0), Waiting: ptr.Deref(st.Waiting, 0), Draining: ptr.Deref(st.Draining, 0),
		Blocked: ptr.Deref(st.Blocked, 0), HandedOver: ptr.Deref(st.HandedOver, 0), Skipped: ptr.Deref(st.Skipped, 0),
		Message: st.Message, Nodes: []DrainNodeView{},
	}
	if c := meta.FindStatusCondition(st.Conditions, v1alpha1.DrainAssistCompleteCondition); c != nil {
		v.Complete = &ConditionView{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message,
			Since: c.LastTransitionTime.UTC(), InStatusSeconds: seconds(now.Sub(c.LastTransitionTime.Time))}
	}
	for _, n := range st.Nodes {
		nv := DrainNodeView{Name: n.Name, State: n.State, Reason: n.Reason, Message: n.Message, PodsLeft: n.PodsLeft, Ranges: n.Ranges}
		if n.StartTime != nil {
			nv.StartTime = ptr.To(n.StartTime.UTC())
			nv.StartedSeconds = ptr.To(seconds(now.Sub(n.StartTime.Time)))
		}
		v.Nodes = append(v.Nodes, nv)
	}
	return v
}
