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

package app

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cli"
	"podnetwork.io/operator/internal/nodeipam"
	"podnetwork.io/operator/internal/scheme"
)

// pagedNodes serves n nodes in pages as the API server does, recording each
// request's limit and continue token; expireAt makes the continue token of
// that page expired (410 Gone).
type pagedNodes struct {
	n, expireAt int
	requests    []string
}

func (p *pagedNodes) list(_ context.Context, opts ...client.ListOption) ([]int, string, error) {
	o := &client.ListOptions{}
	o.ApplyOptions(opts)
	p.requests = append(p.requests, fmt.Sprintf("limit=%d continue=%s", o.Limit, o.Continue))
	start := 0
	if o.Continue != "" {
		start, _ = strconv.Atoi(o.Continue)
		if start == p.expireAt {
			p.expireAt = -1
			return nil, "", apierrors.NewResourceExpired("the provided continue parameter is too old")
		}
	}
	end := p.n
	if o.Limit > 0 {
		end = min(p.n, start+int(o.Limit))
	}
	var items []int
	for i := start; i < end; i++ {
		items = append(items, i)
	}
	next := ""
	if end < p.n {
		next = strconv.Itoa(end)
	}
	return items, next, nil
}

func TestListAllPages(t *testing.T) {
	for _, tt := range []struct {
		n, expireAt int
		want        string
	}{
		{0, -1, "limit=500 continue="},
		{500, -1, "limit=500 continue="},
		{1203, -1, "limit=500 continue= | limit=500 continue=500 | limit=500 continue=1000"},
		// The snapshot expired on the way: one list of everything, never a
		// mix of snapshots.
		{1203, 1000, "limit=500 continue= | limit=500 continue=500 | limit=500 continue=1000 | limit=0 continue="},
	} {
		p := &pagedNodes{n: tt.n, expireAt: tt.expireAt}
		items, err := listAll(context.Background(), p.list, PageSize)
		if err != nil {
			t.Fatal(err)
		}
		if len(items) != tt.n || strings.Join(p.requests, " | ") != tt.want {
			t.Errorf("%d items, expired at %d: got %d items with requests %q, want %q", tt.n, tt.expireAt, len(items), p.requests, tt.want)
		}
		for i, x := range items {
			if x != i {
				t.Fatalf("item %d is %d", i, x)
			}
		}
	}
}

// TestReadPaginates: every list Read sends asks for a page.
func TestReadPaginates(t *testing.T) {
	var lists []string
	c := interceptor.NewClient(fake.NewClientBuilder().WithScheme(scheme.Scheme()).WithObjects(
		&v1alpha1.PodNetworkConsumer{ObjectMeta: metav1.ObjectMeta{Name: "kube-proxy"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-proxy"}},
		&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-proxy"},
			Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "kube-proxy"}}}},
	).Build(), interceptor.Funcs{
		List: func(ctx context.Context, cl client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			o := &client.ListOptions{}
			o.ApplyOptions(opts)
			lists = append(lists, fmt.Sprintf("%T limit=%d", list, o.Limit))
			return cl.List(ctx, list, opts...)
		},
	})
	if _, err := Read(context.Background(), c, nodeipam.ConsumerName, DefaultTargets()); err != nil {
		t.Fatal(err)
	}
	want := "*v1alpha1.PodNetworkConsumerList limit=500 | *v1.NodeList limit=500 | *v1.ServiceCIDRList limit=500 | *v1.PodList limit=500"
	if got := strings.Join(lists, " | "); got != want {
		t.Errorf("lists %s, want %s", got, want)
	}
}

// TestReadPartial: what the user may not read is left out and named; Read
// fails only when nothing could be read, or on any other error.
func TestReadPartial(t *testing.T) {
	objects := []client.Object{
		&v1alpha1.PodNetwork{ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PodNetworkName},
			Spec:   v1alpha1.PodNetworkSpec{Ranges: []v1alpha1.PodCIDRRange{{Name: "a", CIDR: "10.244.0.0/16"}}},
			Status: v1alpha1.PodNetworkStatus{Consumers: []v1alpha1.ConsumerSummary{{Name: "kube-proxy", Required: true, InSync: true}}}},
		&v1alpha1.PodNetworkConsumer{ObjectMeta: metav1.ObjectMeta{Name: "kube-proxy"}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-proxy"}, Data: map[string]string{"config.conf": "x"}},
	}
	// deny refuses the listed kinds as RBAC does, or with another error.
	deny := func(kinds map[string]error) client.WithWatch {
		kindOf := func(o any) string { return strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%T", o), "*"), "List") }
		return interceptor.NewClient(fake.NewClientBuilder().WithScheme(scheme.Scheme()).WithObjects(objects...).Build(), interceptor.Funcs{
			Get: func(ctx context.Context, cl client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
				if err := kinds[kindOf(obj)]; err != nil {
					return err
				}
				return cl.Get(ctx, key, obj, opts...)
			},
			List: func(ctx context.Context, cl client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
				if err := kinds[kindOf(list)]; err != nil {
					return err
				}
				return cl.List(ctx, list, opts...)
			},
		})
	}
	nodes := schema.GroupResource{Resource: "nodes"}
	c, err := Read(context.Background(), deny(map[string]error{
		"v1.Node":      rbacDenial("list", nodes, ""),
		"v1.ConfigMap": rbacDenial("get", schema.GroupResource{Resource: "configmaps"}, "kube-proxy"),
	}), nodeipam.ConsumerName, DefaultTargets())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range c.Unreadable {
		got = append(got, u.String())
	}
	if strings.Join(got, ", ") != "nodes, configmaps kube-system/kube-proxy" || c.PodNetwork == nil || len(c.Consumers) != 1 ||
		len(c.Adapters) != 1 || c.Adapters[0].Unreadable != "ConfigMap kube-system/kube-proxy" || c.Readable(cli.ResourceNodes) {
		t.Errorf("unreadable %q, cluster %+v", got, c)
	}
	if !strings.Contains(c.Unreadable[0].Message, `User "alice" cannot list resource "nodes"`) {
		t.Errorf("message %q", c.Unreadable[0].Message)
	}
	// What status and check make of it.
	s := cli.BuildStatus(c, c.PodNetwork.CreationTimestamp.Time)
	var b strings.Builder
	if err := cli.WriteStatusText(&b, &s); err != nil {
		t.Fatal(err)
	}
	if s.Nodes != nil || !strings.Contains(b.String(), "Nodes: could not be read\n") || len(s.Unreadable) != 2 {
		t.Errorf("status of a partial read:\n%s", b.String())
	}
	r := cli.Check(c, cli.CheckOptions{})
	skipped := map[string]string{}
	for _, ch := range r.Checks {
		skipped[ch.Name] = ch.Skipped
	}
	if skipped[cli.CheckOverlaps] != "nodes could not be read" || skipped[cli.CheckForeign] != "nodes could not be read" ||
		skipped[cli.CheckWithoutPodCIDRs] != "nodes could not be read" || skipped[cli.CheckAcks] != "" || skipped[cli.CheckPodNetwork] != "" {
		t.Errorf("skipped checks %v", skipped)
	}
	if r.Errors != 0 || len(r.Findings) != 1 || !strings.Contains(r.Findings[0].Message, "the kube-proxy adapter's configuration was not checked: ConfigMap kube-system/kube-proxy could not be read") {
		t.Errorf("findings %+v", r.Findings)
	}

	// Without the consumers, status shows the operator's summary of them.
	c, err = Read(context.Background(), deny(map[string]error{"v1alpha1.PodNetworkConsumer": rbacDenial("list", schema.GroupResource{Group: "podnetwork.io", Resource: "podnetworkconsumers"}, "")}),
		nodeipam.ConsumerName, DefaultTargets())
	if err != nil {
		t.Fatal(err)
	}
	s = cli.BuildStatus(c, c.PodNetwork.CreationTimestamp.Time)
	b.Reset()
	if err := cli.WriteStatusText(&b, &s); err != nil {
		t.Fatal(err)
	}
	if len(c.Adapters) != 0 || !strings.Contains(b.String(), "CONSUMERS (the operator's summary: the PodNetworkConsumers could not be read)\nNAME         REQUIRED   IN SYNC   READY     MESSAGE\nkube-proxy   yes        yes       Unknown   -\n") {
		t.Errorf("status without consumers:\n%s", b.String())
	}

	// Nothing readable: an error.
	all := map[string]error{}
	for _, k := range []string{"v1alpha1.PodNetwork", "v1alpha1.AutoscaledRangeSet", "v1alpha1.PodNetworkConsumer", "v1.Node", "v1.ServiceCIDR"} {
		all[k] = rbacDenial("get", schema.GroupResource{Resource: k}, "")
	}
	if _, err := Read(context.Background(), deny(all), nodeipam.ConsumerName, DefaultTargets()); err == nil || !isAuthorizationDenial(err) {
		t.Errorf("reading nothing: %v", err)
	}
	// Any other error is one.
	if _, err := Read(context.Background(), deny(map[string]error{"v1.Node": apierrors.NewServiceUnavailable("etcd")}), nodeipam.ConsumerName, nil); err == nil ||
		err.Error() != "listing nodes: etcd" {
		t.Errorf("an unavailable API: %v", err)
	}
	// An admission-like 403 on a read is no permission problem either.
	if _, err := Read(context.Background(), deny(map[string]error{"v1.Node": apierrors.NewForbidden(nodes, "", fmt.Errorf("something else"))}), nodeipam.ConsumerName, nil); err == nil {
		t.Errorf("a 403 that is no authorization denial was swallowed")
	}
}

// TestReadOperator reads the operator's Deployments by the chart's label,
// in every namespace or in --operator-namespace, and the Lease of each
// one's namespace; what it may not read it names.
func TestReadOperator(t *testing.T) {
	labels := map[string]string{cli.OperatorLabel: cli.OperatorName}
	objects := []client.Object{
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: "podnetwork-operator", Labels: labels}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "something-else"}},
		&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: cli.LeaseName}, Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("op-1")}},
	}
	base := fake.NewClientBuilder().WithScheme(scheme.Scheme()).WithObjects(objects...).Build()
	for _, ns := range []string{"", "ops", "elsewhere"} {
		c := &cli.Cluster{}
		if err := ReadOperator(context.Background(), base, c, ns); err != nil {
			t.Fatal(err)
		}
		want := 1
		if ns == "elsewhere" {
			want = 0
		}
		if c.Operator == nil || c.Operator.Namespace != ns || len(c.Operator.Deployments) != want || len(c.Unreadable) != 0 {
			t.Fatalf("namespace %q: %+v, unreadable %v", ns, c.Operator, c.Unreadable)
		}
		if want == 1 && (c.Operator.Leases["ops"] == nil || ptr.Deref(c.Operator.Leases["ops"].Spec.HolderIdentity, "") != "op-1") {
			t.Errorf("namespace %q: leases %v", ns, c.Operator.Leases)
		}
	}

	deny := func(kind string, err error) client.WithWatch {
		return interceptor.NewClient(fake.NewClientBuilder().WithScheme(scheme.Scheme()).WithObjects(objects...).Build(), interceptor.Funcs{
			Get: func(ctx context.Context, cl client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
				if _, ok := obj.(*coordinationv1.Lease); ok && kind == "lease" {
					return err
				}
				return cl.Get(ctx, key, obj, opts...)
			},
			List: func(ctx context.Context, cl client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
				if _, ok := list.(*appsv1.DeploymentList); ok && kind == "deployments" {
					return err
				}
				return cl.List(ctx, list, opts...)
			},
		})
	}
	c := &cli.Cluster{}
	if err := ReadOperator(context.Background(), deny("deployments", rbacDenial("list", schema.GroupResource{Group: "apps", Resource: "deployments"}, "")), c, ""); err != nil {
		t.Fatal(err)
	}
	if len(c.Unreadable) != 1 || c.Unreadable[0].String() != "deployments" || c.Readable(cli.ResourceDeployments) {
		t.Errorf("unreadable %v", c.Unreadable)
	}
	c = &cli.Cluster{}
	if err := ReadOperator(context.Background(), deny("lease", rbacDenial("get", schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, cli.LeaseName)), c, ""); err != nil {
		t.Fatal(err)
	}
	if len(c.Unreadable) != 1 || c.Unreadable[0].String() != "leases ops/podnetwork-operator" || len(c.Operator.Deployments) != 1 {
		t.Errorf("unreadable %v, operator %+v", c.Unreadable, c.Operator)
	}
	if _, read := c.Operator.Leases["ops"]; read {
		t.Errorf("a Lease that could not be read counts as read")
	}
	// Any other error is one.
	if err := ReadOperator(context.Background(), deny("deployments", apierrors.NewServiceUnavailable("etcd")), &cli.Cluster{}, ""); err == nil {
		t.Errorf("an unavailable API was swallowed")
	}
}
