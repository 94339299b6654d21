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
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/declared"
	"podnetwork.io/operator/internal/nodeipam"
)

// StatusReport is what `kubectl podnetwork status` shows; kind
// StatusReport of cli.podnetwork.io/v1alpha1 in the machine output.
type StatusReport struct {
	metav1.TypeMeta `json:",inline"`
	// PodNetwork is the name of the PodNetwork; empty when there is none.
	PodNetwork string `json:"podNetwork,omitempty"`
	// Generation and ObservedGeneration tell whether the operator has seen
	// the latest spec.
	Generation         int64 `json:"generation,omitempty"`
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Ranges are the tracked ranges, in status order, then the declared
	// ranges the operator does not track yet.
	Ranges []RangeView `json:"ranges"`
	// Groups are the headroom of the Active ranges per nodeSelector.
	Groups []GroupView `json:"groups"`
	// Consumers are the PodNetworkConsumers.
	Consumers []ConsumerView `json:"consumers"`
	// Conditions are the PodNetwork's conditions.
	Conditions []ConditionView `json:"conditions"`
	// ForeignNodeCount and ForeignNodes are the nodes with a podCIDR outside
	// every tracked range, as the operator reports them.
	ForeignNodeCount int32    `json:"foreignNodeCount,omitempty"`
	ForeignNodes     []string `json:"foreignNodes,omitempty"`
	// AllocationConflicts are the overlapping podCIDRs NodeIPAM reports.
	AllocationConflicts []string `json:"allocationConflicts,omitempty"`
	// NodesWithoutPodCIDRs counts the nodes, not being deleted, that have no
	// podCIDRs; nil when the nodes could not be read.
	NodesWithoutPodCIDRs *int `json:"nodesWithoutPodCIDRs,omitempty"`
	// Nodes counts every node; nil when the nodes could not be read.
	Nodes *int `json:"nodes,omitempty"`
	// Autoscaling is the autoscaler's mode and pools, with the ranges each
	// pool added; absent when no autoscaling is configured and no range was
	// autoscaled.
	Autoscaling *AutoscalingView `json:"autoscaling,omitempty"`
	// DrainAssist is drain assist's progress (status.drainAssist); absent
	// while its mode is Off.
	DrainAssist *DrainAssistView `json:"drainAssist,omitempty"`
	// Operator is the operator's Deployment readiness and leader-election
	// Lease.
	Operator *OperatorStatus `json:"operator,omitempty"`
	// Unreadable is what the plugin was not allowed to read; the report
	// leaves out what depends on it.
	Unreadable []Unreadable `json:"unreadable,omitempty"`
}

// RangeView is one range in Status.
type RangeView struct {
	Name         string `json:"name"`
	CIDR         string `json:"cidr"`
	NodeMaskSize int32  `json:"nodeMaskSize,omitempty"`
	// Phase is the phase the operator reports; "NotTracked" for a declared
	// range the operator has not picked up yet.
	Phase v1alpha1.RangePhase `json:"phase"`
	// Since is when the range entered its phase, and InPhaseSeconds how
	// long ago that was.
	Since          *time.Time `json:"phaseSince,omitempty"`
	InPhaseSeconds *int64     `json:"inPhaseSeconds,omitempty"`
	// Selector is the nodeSelector of the declared range in words.
	Selector string `json:"selector,omitempty"`
	// Pool is the autoscaling pool that added the range; empty for a range
	// of spec.ranges.
	Pool       string                    `json:"pool,omitempty"`
	Awaiting   []string                  `json:"awaiting,omitempty"`
	Rejections []v1alpha1.RangeRejection `json:"rejections,omitempty"`
	// Invalid is "reason: message" when the operator found the range
	// invalid.
	Invalid   string               `json:"invalid,omitempty"`
	Message   string               `json:"message,omitempty"`
	CoveredBy string               `json:"coveredBy,omitempty"`
	Usage     *v1alpha1.RangeUsage `json:"usage,omitempty"`
	// Holders are the nodes that still hold blocks of a Draining range.
	Holders     []string `json:"holders,omitempty"`
	HolderCount int32    `json:"holderCount,omitempty"`
}

// NotTracked is the phase Status shows for a declared range the operator
// does not track (yet).
const NotTracked v1alpha1.RangePhase = "NotTracked"

// GroupView is the headroom of one selector group (nodeipam.SelectorGroup).
type GroupView struct {
	Selector string                  `json:"selector"`
	Ranges   []string                `json:"ranges"`
	Families []nodeipam.FamilyBlocks `json:"families"`
	// Joinable is how many more nodes the group can give a block of every
	// family it serves.
	Joinable int64 `json:"joinableNodes"`
}

// ConsumerView is one PodNetworkConsumer in Status.
type ConsumerView struct {
	Name     string `json:"name"`
	Required bool   `json:"required"`
	// InSync is the operator's verdict: the consumer acknowledged the
	// current phase of every range.
	InSync bool `json:"inSync"`
	// Ready, ReadyReason and ReadyMessage are the consumer's own Ready
	// condition ("Unknown" when it has none).
	Ready        string `json:"ready"`
	ReadyReason  string `json:"readyReason,omitempty"`
	ReadyMessage string `json:"readyMessage,omitempty"`
	// Message is what the operator says the consumer lags on.
	Message  string `json:"message,omitempty"`
	Deleting bool   `json:"deleting,omitempty"`
}

// ConditionView is one condition of the PodNetwork.
type ConditionView struct {
	Type    string    `json:"type"`
	Status  string    `json:"status"`
	Reason  string    `json:"reason,omitempty"`
	Message string    `json:"message,omitempty"`
	Since   time.Time `json:"lastTransitionTime"`
	// InStatusSeconds is how long ago Since was.
	InStatusSeconds int64 `json:"inStatusSeconds"`
}

// BuildStatus reads c into a StatusReport at now.
func BuildStatus(c *Cluster, now time.Time) StatusReport {
	s := StatusReport{TypeMeta: typeMeta(KindStatusReport), Ranges: []RangeView{}, Groups: []GroupView{}, Consumers: []ConsumerView{}, Conditions: []ConditionView{},
		Unreadable: c.unreadable(), Operator: operatorStatus(c, now), Autoscaling: autoscalingView(c)}
	if c.Readable(ResourceNodes) {
		without := 0
		for i := range c.Nodes {
			if len(c.Nodes[i].Spec.PodCIDRs) == 0 && c.Nodes[i].DeletionTimestamp.IsZero() {
				without++
			}
		}
		s.Nodes, s.NodesWithoutPodCIDRs = ptr.To(len(c.Nodes)), ptr.To(without)
	}
	for i := range c.Consumers {
		s.Consumers = append(s.Consumers, consumerView(c, &c.Consumers[i]))
	}
	pn := c.PodNetwork
	if pn == nil {
		return s
	}
	if !c.Readable(ResourceConsumers) {
		// The operator's summary of each consumer is all there is to show;
		// their own Ready condition could not be read.
		for _, sum := range pn.Status.Consumers {
			s.Consumers = append(s.Consumers, ConsumerView{Name: sum.Name, Required: sum.Required, InSync: sum.InSync, Message: sum.Message, Ready: "Unknown"})
		}
	}
	s.PodNetwork = pn.Name
	s.Generation = pn.Generation
	s.ObservedGeneration = ptr.Deref(pn.Status.ObservedGeneration, 0)
	d := c.Declared(pn.Spec.Ranges)
	selectors := map[string]string{}
	for _, r := range d.Ranges {
		selectors[r.Name] = nodeipam.DescribeNodeSelector(r.NodeSelector)
	}
	for i := range pn.Status.Ranges {
		rs := &pn.Status.Ranges[i]
		v := RangeView{
			Name: rs.Name, CIDR: rs.CIDR, NodeMaskSize: rs.NodeMaskSize, Phase: rs.Phase,
			Selector: selectors[rs.Name], Pool: rs.Pool, Awaiting: rs.Awaiting, Rejections: rs.Rejections,
			Message: rs.Message, CoveredBy: rs.CoveredBy, Holders: rs.Holders, HolderCount: rs.HolderCount,
		}
		if rs.PhaseSince != nil {
			v.Since = ptr.To(rs.PhaseSince.UTC())
			v.InPhaseSeconds = ptr.To(seconds(now.Sub(rs.PhaseSince.Time)))
		}
		if rs.InvalidReason != "" {
			v.Invalid = string(rs.InvalidReason) + ": " + rs.InvalidMessage
		}
		if !rs.Usage.IsZero() {
			v.Usage = ptr.To(rs.Usage)
		}
		s.Ranges = append(s.Ranges, v)
	}
	for _, r := range d.Ranges {
		if pn.Status.FindRange(r.Name) == nil {
			s.Ranges = append(s.Ranges, RangeView{Name: r.Name, CIDR: r.CIDR, NodeMaskSize: r.EffectiveNodeMaskSize(),
				Phase: NotTracked, Selector: selectors[r.Name], Pool: d.Pools[r.Name]})
		}
	}
	for _, g := range nodeipam.SelectorGroups(declaredView(c)) {
		s.Groups = append(s.Groups, GroupView{Selector: g.Selector, Ranges: g.Ranges, Families: g.Families, Joinable: g.Joinable})
	}
	for _, cond := range pn.Status.Conditions {
		s.Conditions = append(s.Conditions, ConditionView{
			Type: cond.Type, Status: string(cond.Status), Reason: cond.Reason, Message: cond.Message,
			Since: cond.LastTransitionTime.UTC(), InStatusSeconds: seconds(now.Sub(cond.LastTransitionTime.Time)),
		})
	}
	s.ForeignNodeCount, s.ForeignNodes = pn.Status.ForeignNodeCount, pn.Status.ForeignNodes
	s.AllocationConflicts = pn.Status.AllocationConflicts
	s.DrainAssist = drainAssistView(pn, now)
	return s
}

// declaredView is the PodNetwork with spec.ranges replaced by the declared
// ranges (declared.View), for the readers written against a PodNetwork
// alone (NodeIPAM's Config). It is read-only.
func declaredView(c *Cluster) *v1alpha1.PodNetwork {
	return declared.View(c.PodNetwork, c.AutoscaledRangeSet)
}

func consumerView(c *Cluster, pnc *v1alpha1.PodNetworkConsumer) ConsumerView {
	v := ConsumerView{Name: pnc.Name, Required: pnc.IsRequired(), Ready: "Unknown", Deleting: !pnc.DeletionTimestamp.IsZero()}
	if cond := meta.FindStatusCondition(pnc.Status.Conditions, v1alpha1.ConsumerReadyCondition); cond != nil {
		v.Ready, v.ReadyReason, v.ReadyMessage = string(cond.Status), cond.Reason, cond.Message
	}
	if c.PodNetwork != nil {
		for _, sum := range c.PodNetwork.Status.Consumers {
			if sum.Name == pnc.Name {
				v.InSync, v.Message = sum.InSync, sum.Message
			}
		}
	}
	return v
}

// Age says how long d is the way kubectl does: the largest one or two units
// ("45s", "5m30s", "3h", "2d4h").
func Age(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < 10*time.Minute:
		m, s := int(d.Minutes()), int(d.Seconds())%60
		if s == 0 {
			return fmt.Sprintf("%dm", m)
		}
		return fmt.Sprintf("%dm%ds", m, s)
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 8*time.Hour:
		h, m := int(d.Hours()), int(d.Minutes())%60
		if m == 0 {
			return fmt.Sprintf("%dh", h)
		}
		return fmt.Sprintf("%dh%dm", h, m)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	default:
		days, h := int(d.Hours())/24, int(d.Hours())%24
		if h == 0 || days >= 8 {
			return fmt.Sprintf("%dd", days)
		}
		return fmt.Sprintf("%dd%dh", days, h)
	}
}
