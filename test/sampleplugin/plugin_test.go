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
	"path/filepath"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// TestPluginAgainstAPIServer runs the plugin against a real kube-apiserver
// with the podnetwork.io CRDs. The test plays the operator: it writes the
// PodNetwork status a range goes through (the operator's module is not
// imported here, on purpose) and checks the plugin's own writes.
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
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	plugin := &Plugin{}
	if err := plugin.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})

	// The plugin registers itself, required.
	self := &v1alpha1.PodNetworkConsumer{}
	eventually(t, "the plugin registers", func() bool {
		return c.Get(ctx, client.ObjectKey{Name: Name}, self) == nil
	})
	if !self.IsRequired() || self.Spec.Description == "" {
		t.Fatalf("registered spec %+v, want required with a description", self.Spec)
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
	setPhases := func(p4, p6 v1alpha1.RangePhase) {
		t.Helper()
		v4.Phase, v4.PhaseSince = p4, ptr.To(metav1.Now())
		v6.Phase, v6.PhaseSince = p6, ptr.To(metav1.Now())
		if err := c.Get(ctx, client.ObjectKeyFromObject(pn), pn); err != nil {
			t.Fatal(err)
		}
		pn.Status.Ranges = []v1alpha1.RangeStatus{v4, v6}
		if err := c.Status().Update(ctx, pn); err != nil {
			t.Fatal(err)
		}
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

	setPhases(v1alpha1.RangePhasePending, v1alpha1.RangePhasePending)
	eventually(t, "Pending v4 is accepted", answered(v4, v1alpha1.AckAccepted))
	eventually(t, "Pending v6 is rejected", answered(v6, v1alpha1.AckRejected))
	if !slices.Equal(plugin.Routes(), []string{"10.244.0.0/16"}) {
		t.Errorf("routes %v, want the Pending IPv4 range", plugin.Routes())
	}
	ready := meta.FindStatusCondition(self.Status.Conditions, v1alpha1.ConsumerReadyCondition)
	if observed := ptr.Deref(self.Status.ObservedGeneration, 0); ready == nil || ready.Status != metav1.ConditionTrue || observed != self.Generation {
		t.Errorf("Ready %+v, observedGeneration %d; want Ready=True at generation %d", ready, observed, self.Generation)
	}

	setPhases(v1alpha1.RangePhaseActive, v1alpha1.RangePhaseReleased)
	eventually(t, "Active v4 is accepted", answered(v4, v1alpha1.AckAccepted))
	eventually(t, "Released v6 is accepted", answered(v6, v1alpha1.AckAccepted))

	// The status is written under the plugin's own field manager only.
	for _, mf := range self.ManagedFields {
		if mf.Subresource == "status" && mf.Manager != Name {
			t.Errorf("status field manager %q, want only %q", mf.Manager, Name)
		}
	}

	// A purged range's entry disappears from the plugin's status.
	if err := c.Get(ctx, client.ObjectKeyFromObject(pn), pn); err != nil {
		t.Fatal(err)
	}
	pn.Status.Ranges = []v1alpha1.RangeStatus{v4}
	if err := c.Status().Update(ctx, pn); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the purged range's acknowledgement is dropped", func() bool {
		return c.Get(ctx, client.ObjectKey{Name: Name}, self) == nil && len(self.Status.Ranges) == 1
	})
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("timed out waiting until %s: %v", what, err)
	}
}
