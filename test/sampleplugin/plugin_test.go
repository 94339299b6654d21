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

package sampleplugin

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"podnetwork.io/operator/api/consumer"
	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// TestPluginAgainstAPIServer runs the plugin against a real kube-apiserver
// with the podnetwork.io CRDs, as a ServiceAccount bound to exactly the
// ClusterRole of docs/examples/plugin-clusterrole.yaml (for "my-plugin",
// renamed). The test plays the operator, as admin: it writes the PodNetwork
// status a range goes through (the operator's module is not imported here,
// on purpose) and checks the plugin's own writes through a full cycle,
// Pending, Active, Draining, Released and purged.
func TestPluginAgainstAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a kube-apiserver (KUBEBUILDER_ASSETS)")
	}
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("starting the control plane (set KUBEBUILDER_ASSETS): %v", err)
	}
	t.Cleanup(func() { _ = env.Stop() })

	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)

	// The plugin runs as its ServiceAccount, bound to the documented role only.
	bindDocumentedRole(ctx, t, c)
	user, err := env.AddUser(envtest.User{Name: serviceAccount, Groups: []string{
		"system:serviceaccounts", "system:serviceaccounts:" + Name, "system:authenticated",
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pluginCfg := user.Config()
	pc, err := client.New(pluginCfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(pluginCfg, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	plugin := &Plugin{}
	if err := plugin.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})

	// The plugin registers itself, required, by server-side apply.
	self := &v1alpha1.PodNetworkConsumer{}
	eventually(t, "the plugin registers", func() bool {
		return c.Get(ctx, client.ObjectKey{Name: Name}, self) == nil
	})
	if !self.IsRequired() || self.Spec.Description == "" {
		t.Fatalf("registered spec %+v, want required with a description", self.Spec)
	}

	// The role is what it says: the plugin's own object only.
	other := &v1alpha1.PodNetworkConsumer{ObjectMeta: metav1.ObjectMeta{Name: "other"}}
	if err := c.Create(ctx, other); err != nil {
		t.Fatal(err)
	}
	forbidden(t, "reading another consumer", pc.Get(ctx, client.ObjectKeyFromObject(other), &v1alpha1.PodNetworkConsumer{}))
	forbidden(t, "listing every consumer", pc.List(ctx, &v1alpha1.PodNetworkConsumerList{}))
	forbidden(t, "a plain create, even of its own name", pc.Create(ctx, &v1alpha1.PodNetworkConsumer{ObjectMeta: metav1.ObjectMeta{Name: Name + "-2"}}))
	if err := pc.List(ctx, &v1alpha1.PodNetworkConsumerList{}, client.MatchingFields{"metadata.name": Name}); err != nil {
		t.Errorf("listing its own consumer with the field selector: %v", err)
	}

	pn := &v1alpha1.PodNetwork{
		ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PodNetworkName},
		Spec: v1alpha1.PodNetworkSpec{Ranges: []v1alpha1.PodCIDRRange{
			{Name: "v4", CIDR: "10.244.0.0/16"}, {Name: "v6", CIDR: "fd00:10:244::/48"},
		}},
	}
	if err := c.Create(ctx, pn); err != nil {
		t.Fatal(err)
	}
	v4 := v1alpha1.RangeStatus{Name: "v4", CIDR: "10.244.0.0/16", IPFamily: v1alpha1.IPv4, NodeMaskSize: 24}
	v6 := v1alpha1.RangeStatus{Name: "v6", CIDR: "fd00:10:244::/48", IPFamily: v1alpha1.IPv6, NodeMaskSize: 64}
	setRanges := func(ranges ...*v1alpha1.RangeStatus) {
		t.Helper()
		if err := c.Get(ctx, client.ObjectKeyFromObject(pn), pn); err != nil {
			t.Fatal(err)
		}
		pn.Status.Ranges = nil
		for _, rs := range ranges {
			pn.Status.Ranges = append(pn.Status.Ranges, *rs)
		}
		if err := c.Status().Update(ctx, pn); err != nil {
			t.Fatal(err)
		}
	}
	phase := func(rs *v1alpha1.RangeStatus, p v1alpha1.RangePhase) *v1alpha1.RangeStatus {
		rs.Phase, rs.PhaseSince = p, ptr.To(metav1.Now())
		return rs
	}
	answered := func(rs v1alpha1.RangeStatus, want v1alpha1.AckResult) func() bool {
		return func() bool {
			if err := c.Get(ctx, client.ObjectKey{Name: Name}, self); err != nil {
				return false
			}
			acked, rejected, _ := v1alpha1.AckState(self.Status.Ranges, &rs)
			return (want == v1alpha1.AckAccepted && acked) || (want == v1alpha1.AckRejected && rejected)
		}
	}
	routes := func(want ...string) {
		t.Helper()
		got := plugin.Routes()
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("routes %v, want %v", got, want)
		}
	}

	setRanges(phase(&v4, v1alpha1.RangePhasePending), phase(&v6, v1alpha1.RangePhasePending))
	eventually(t, "Pending v4 is accepted", answered(v4, v1alpha1.AckAccepted))
	eventually(t, "Pending v6 is rejected", answered(v6, v1alpha1.AckRejected))
	routes("10.244.0.0/16")
	ready := meta.FindStatusCondition(self.Status.Conditions, v1alpha1.ConsumerReadyCondition)
	if observed := ptr.Deref(self.Status.ObservedGeneration, 0); ready == nil || ready.Status != metav1.ConditionTrue || observed != self.Generation {
		t.Errorf("Ready %+v, observedGeneration %d; want Ready=True at generation %d", ready, observed, self.Generation)
	}

	setRanges(phase(&v4, v1alpha1.RangePhaseActive), phase(&v6, v1alpha1.RangePhaseReleased))
	eventually(t, "Active v4 is accepted", answered(v4, v1alpha1.AckAccepted))
	eventually(t, "Released v6 is accepted", answered(v6, v1alpha1.AckAccepted))

	// The status is written under the plugin's own field manager only.
	for _, mf := range self.ManagedFields {
		if mf.Subresource == "status" && mf.Manager != Name {
			t.Errorf("status field manager %q, want only %q", mf.Manager, Name)
		}
	}

	// A purged range's entry disappears from the plugin's status.
	setRanges(&v4)
	eventually(t, "the purged range's acknowledgement is dropped", func() bool {
		return c.Get(ctx, client.ObjectKey{Name: Name}, self) == nil && len(self.Status.Ranges) == 1
	})

	// v4 drains, still routed, then is released and no longer routed.
	setRanges(phase(&v4, v1alpha1.RangePhaseDraining))
	eventually(t, "Draining v4 is accepted", answered(v4, v1alpha1.AckAccepted))
	routes("10.244.0.0/16")
	setRanges(phase(&v4, v1alpha1.RangePhaseReleased))
	eventually(t, "Released v4 is accepted", answered(v4, v1alpha1.AckAccepted))
	routes()
	setRanges()
	eventually(t, "the purged v4's acknowledgement is dropped", func() bool {
		return c.Get(ctx, client.ObjectKey{Name: Name}, self) == nil && len(self.Status.Ranges) == 0
	})

	// An admin's required: false survives the plugin registering again (a
	// restart), even if its read missed the object: the apply never forces.
	self.Spec.Required = ptr.To(false)
	if err := c.Update(ctx, self); err != nil {
		t.Fatal(err)
	}
	spec := v1alpha1.PodNetworkConsumerSpec{Required: ptr.To(true), Description: "registered again"}
	for _, reader := range []client.Reader{pc, notFound{}} {
		cc := &consumer.Client{Client: pc, Reader: reader, Name: Name, FieldManager: Name}
		if err := cc.Register(ctx, spec); err != nil {
			t.Errorf("registering again: %v", err)
		}
	}
	if err := c.Get(ctx, client.ObjectKey{Name: Name}, self); err != nil {
		t.Fatal(err)
	}
	if self.IsRequired() {
		t.Errorf("registering again made the consumer required; spec %+v", self.Spec)
	}
}

// serviceAccount is the user the plugin runs as.
const serviceAccount = "system:serviceaccount:" + Name + ":" + Name

// bindDocumentedRole creates the ClusterRole and ClusterRoleBinding of
// docs/examples/plugin-clusterrole.yaml, written for "my-plugin", for this
// plugin (its name in place of my-plugin, also as the ServiceAccount's name
// and namespace).
func bindDocumentedRole(ctx context.Context, t *testing.T, c client.Client) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "examples", "plugin-clusterrole.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(strings.ReplaceAll(string(data), "my-plugin", Name)), 4096)
	created := 0
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatal(err)
		}
		if len(obj.Object) == 0 {
			continue
		}
		if err := c.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
		created++
	}
	if created != 2 {
		t.Fatalf("the example has %d objects, want a ClusterRole and a ClusterRoleBinding", created)
	}
}

// notFound is a reader that finds nothing, as a registration whose read
// raced with someone else creating the object.
type notFound struct{ client.Reader }

func (notFound) Get(_ context.Context, key client.ObjectKey, _ client.Object, _ ...client.GetOption) error {
	return apierrors.NewNotFound(v1alpha1.GroupVersion.WithResource("podnetworkconsumers").GroupResource(), key.Name)
}

func forbidden(t *testing.T, what string, err error) {
	t.Helper()
	if !apierrors.IsForbidden(err) {
		t.Errorf("%s: %v, want forbidden", what, err)
	}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("timed out waiting until %s: %v", what, err)
	}
}
