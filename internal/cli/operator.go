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
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/utils/ptr"
)

// The operator's own workload, as the chart installs it.
const (
	// OperatorLabel and OperatorName are the label, and its value, that
	// the chart puts on the operator's Deployment.
	OperatorLabel = "app.kubernetes.io/name"
	OperatorName  = "podnetwork-operator"
	// LeaseName is the leader-election Lease the operator's replicas compete
	// for, in the Deployment's namespace (controllers.LeaderElectionID).
	LeaseName = "podnetwork-operator"

	ResourceDeployments = "deployments"
	ResourceLeases      = "leases"
)

// Operator is what the plugin read of the operator's own workload: the
// Deployments labelled OperatorLabel=OperatorName and the leader-election
// Lease of each one's namespace.
type Operator struct {
	// Namespace is where the plugin looked (--operator-namespace); empty
	// for every namespace.
	Namespace string
	// Deployments are the operator's Deployments, by namespace and name.
	Deployments []appsv1.Deployment
	// Leases are the Leases named LeaseName by namespace; a namespace read
	// without finding one maps to nil. A namespace whose Lease could not be
	// read is missing (Cluster.Unreadable names it).
	Leases map[string]*coordinationv1.Lease
}

// OperatorStatus is the operator's health in Status.
type OperatorStatus struct {
	// Namespace is where the plugin looked for the operator's Deployment;
	// empty for every namespace.
	Namespace string `json:"namespace,omitempty"`
	// Deployments are the operator's Deployments; empty when none was
	// found or the Deployments could not be read.
	Deployments []OperatorView `json:"deployments"`
}

// OperatorView is one Deployment of the operator and its leader.
type OperatorView struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// DesiredReplicas is spec.replicas, ReadyReplicas status.readyReplicas.
	DesiredReplicas int32 `json:"desiredReplicas"`
	ReadyReplicas   int32 `json:"readyReplicas"`
	// Lease is the leader-election Lease of the namespace; nil when there
	// is none or it could not be read (LeaseUnreadable).
	Lease           *LeaseView `json:"lease,omitempty"`
	LeaseUnreadable bool       `json:"leaseUnreadable,omitempty"`
}

// LeaseView is the leader-election Lease.
type LeaseView struct {
	Name string `json:"name"`
	// Holder is the replica that holds the Lease; empty when it was
	// released.
	Holder string `json:"holder,omitempty"`
	// HeldForSeconds is how long ago the holder acquired it (acquireTime).
	HeldForSeconds *int64 `json:"heldForSeconds,omitempty"`
	// RenewedSecondsAgo is how long ago it was last renewed (renewTime).
	RenewedSecondsAgo *int64 `json:"renewedSecondsAgo,omitempty"`
	// DurationSeconds is leaseDurationSeconds.
	DurationSeconds int32 `json:"leaseDurationSeconds,omitempty"`
	// Expired is true when renewTime + leaseDurationSeconds is past: no
	// replica leads, nothing reconciles. ExpiredSeconds is for how long.
	Expired        bool   `json:"expired"`
	ExpiredSeconds *int64 `json:"expiredSeconds,omitempty"`
}

// operatorStatus reads c.Operator at now; nil when it was not read.
func operatorStatus(c *Cluster, now time.Time) *OperatorStatus {
	op := c.Operator
	if op == nil {
		return nil
	}
	out := &OperatorStatus{Namespace: op.Namespace, Deployments: []OperatorView{}}
	for i := range op.Deployments {
		d := &op.Deployments[i]
		v := OperatorView{Namespace: d.Namespace, Name: d.Name, DesiredReplicas: ptr.Deref(d.Spec.Replicas, 1), ReadyReplicas: d.Status.ReadyReplicas}
		lease, read := op.Leases[d.Namespace]
		switch {
		case !read:
			v.LeaseUnreadable = true
		case lease != nil:
			v.Lease = leaseView(lease, now)
		}
		out.Deployments = append(out.Deployments, v)
	}
	return out
}

func leaseView(l *coordinationv1.Lease, now time.Time) *LeaseView {
	v := &LeaseView{Name: l.Name, Holder: ptr.Deref(l.Spec.HolderIdentity, ""), DurationSeconds: ptr.Deref(l.Spec.LeaseDurationSeconds, 0)}
	if l.Spec.AcquireTime != nil {
		v.HeldForSeconds = ptr.To(seconds(now.Sub(l.Spec.AcquireTime.Time)))
	}
	if l.Spec.RenewTime == nil {
		// Never renewed: nobody holds it.
		v.Expired = true
		return v
	}
	v.RenewedSecondsAgo = ptr.To(seconds(now.Sub(l.Spec.RenewTime.Time)))
	if end := l.Spec.RenewTime.Add(time.Duration(v.DurationSeconds) * time.Second); end.Before(now) {
		v.Expired = true
		v.ExpiredSeconds = ptr.To(seconds(now.Sub(end)))
	}
	return v
}

// where says where the plugin looked for the operator.
func (s *OperatorStatus) where() string {
	if s.Namespace == "" {
		return "in any namespace"
	}
	return "in namespace " + s.Namespace
}

// describe is one Deployment of the operator in words, for status.
func (v *OperatorView) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Deployment %s/%s %d/%d ready", v.Namespace, v.Name, v.ReadyReplicas, v.DesiredReplicas)
	switch l := v.Lease; {
	case v.LeaseUnreadable:
		fmt.Fprintf(&b, "; Lease %s could not be read", LeaseName)
	case l == nil:
		fmt.Fprintf(&b, "; no Lease %s: no replica has been elected leader", LeaseName)
	case l.Holder == "":
		fmt.Fprintf(&b, "; Lease %s released: no leader", l.Name)
	case l.Expired:
		fmt.Fprintf(&b, "; leader %s, Lease expired", l.Holder)
		if l.ExpiredSeconds != nil {
			fmt.Fprintf(&b, " %s ago", ageOf(*l.ExpiredSeconds))
		}
		b.WriteString(": no replica leads")
	default:
		fmt.Fprintf(&b, "; leader %s", l.Holder)
		if l.HeldForSeconds != nil {
			fmt.Fprintf(&b, " for %s", ageOf(*l.HeldForSeconds))
		}
		if l.RenewedSecondsAgo != nil {
			fmt.Fprintf(&b, " (renewed %s ago)", ageOf(*l.RenewedSecondsAgo))
		}
	}
	return b.String()
}

// writeOperatorText prints the operator lines of status.
func writeOperatorText(b *strings.Builder, s *OperatorStatus, unreadable []Unreadable) {
	if s == nil {
		return
	}
	switch {
	case len(s.Deployments) > 0:
		for i := range s.Deployments {
			fmt.Fprintf(b, "Operator: %s\n", s.Deployments[i].describe())
		}
	case !readable(unreadable, ResourceDeployments):
		fmt.Fprintf(b, "Operator: its Deployment could not be read\n")
	default:
		fmt.Fprintf(b, "Operator: no Deployment labelled %s=%s %s\n", OperatorLabel, OperatorName, s.where())
	}
}

// operator checks that the operator runs: its Deployment has ready
// replicas and a replica holds the leader-election Lease.
func (k *checker) operator() string {
	s := operatorStatus(k.c, k.opts.Now)
	if len(s.Deployments) == 0 {
		k.add(SeverityWarning, "", "no Deployment labelled %s=%s %s: nothing reconciles unless the operator runs elsewhere (--operator-namespace)",
			OperatorLabel, OperatorName, s.where())
		return "no operator Deployment"
	}
	for i := range s.Deployments {
		v := &s.Deployments[i]
		subject := "deployment/" + v.Namespace + "/" + v.Name
		switch {
		case v.DesiredReplicas == 0:
			k.add(SeverityError, subject, "scaled to 0 replicas: no operator runs, nothing reconciles")
		case v.ReadyReplicas == 0:
			k.add(SeverityError, subject, "0/%d replicas ready: no operator runs, nothing reconciles; see kubectl -n %s describe deployment %s", v.DesiredReplicas, v.Namespace, v.Name)
		case v.ReadyReplicas < v.DesiredReplicas:
			k.add(SeverityWarning, subject, "%d/%d replicas ready", v.ReadyReplicas, v.DesiredReplicas)
		}
		leaseSubject := "lease/" + v.Namespace + "/" + LeaseName
		switch l := v.Lease; {
		case v.LeaseUnreadable:
			k.add(SeverityWarning, leaseSubject, "the leader-election Lease could not be read: whether a replica leads was not checked")
		case l == nil:
			k.add(SeverityWarning, leaseSubject, "there is no leader-election Lease: no replica has been elected (or the operator runs with --leader-elect=false)")
		case l.Holder == "":
			k.add(SeverityWarning, leaseSubject, "the Lease was released and no replica holds it")
		case l.Expired:
			ago := ""
			if l.ExpiredSeconds != nil {
				ago = " " + ageOf(*l.ExpiredSeconds) + " ago"
			}
			k.add(SeverityError, leaseSubject, "the Lease held by %s expired%s: no replica leads, nothing reconciles", l.Holder, ago)
		}
	}
	names := make([]string, len(s.Deployments))
	for i, v := range s.Deployments {
		names[i] = fmt.Sprintf("%s/%s", v.Namespace, v.Name)
	}
	slices.Sort(names)
	return "Deployment " + strings.Join(names, ", ")
}
