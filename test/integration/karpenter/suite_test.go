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

// Package karpenter_test retires a range end to end with the real
// Karpenter: drain assist (Auto, handover Delete) drains the nodes holding
// blocks of the Draining range and deletes them, Karpenter's termination
// finalizer terminates their instances and Karpenter provisions the
// replacements, which NodeIPAM gives blocks of the remaining range. It is
// what docs/operations.md's "With Karpenter" runbook promises, checked over
// the recorded history and the apiserver's audit log rather than the end
// state alone.
//
// Everything runs as in a cluster but for the machines: etcd and
// kube-apiserver (with an audit log of every eviction), kube-controller-
// manager with the disruption controller (PodDisruptionBudget status: the
// Eviction API answers 429 to every eviction without it), the Deployment,
// ReplicaSet, garbage-collector, ServiceAccount and node-lifecycle
// controllers, kube-scheduler,
// Karpenter's kwok cloud provider (sigs.k8s.io/karpenter/kwok, built by
// `make karpenter`) with its CRDs, kwok playing the kubelets of the nodes
// Karpenter creates, and the operator in-process with NodeIPAM as the
// only allocator, as the chart's ServiceAccount with the chart's RBAC.
package karpenter_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/cluster"
)

var (
	ctx          context.Context
	controlPlane *framework.ControlPlane
	k8sClient    framework.API
	// auditLog is the apiserver's audit log: every eviction, whoever asked.
	auditLog string
)

// Karpenter's identity: a ServiceAccount impersonated with cluster-admin,
// so that its requests, in the audit log, are not the operator's nor the
// test's.
const (
	karpenterNamespace      = "karpenter"
	karpenterServiceAccount = "karpenter"
)

func TestKarpenter(t *testing.T) {
	requireKarpenter(t)
	// Eventually waits for Karpenter to provision and terminate nodes:
	// seconds each, but the suite shares two cores with the others.
	framework.RunSuite(t, "Karpenter Suite", 90*time.Second, 200*time.Millisecond)
}

// requireKarpenter skips, saying why, when Karpenter's kwok provider or
// its CRDs have not been built, unless the run promises every test
// (framework.RequireRootEnv, which `make test` sets): then it fails.
func requireKarpenter(t *testing.T) {
	t.Helper()
	bin, err := cluster.KarpenterBinary()
	if err != nil {
		t.Fatal(err)
	}
	crds, err := cluster.KarpenterCRDs()
	if err != nil {
		t.Fatal(err)
	}
	_, binErr := os.Stat(bin)
	_, crdErr := os.Stat(crds)
	if binErr == nil && crdErr == nil {
		return
	}
	why := "Karpenter's kwok provider (" + bin + ") or its CRDs (" + crds + ") are not built; `make karpenter` builds them (make test does)"
	if os.Getenv(framework.RequireRootEnv) != "" {
		t.Fatalf("%s, and %s is set", why, framework.RequireRootEnv)
	}
	// A plain `go test ./...` without the assets (a developer's quick loop)
	// skips with the reason; make test sets RequireRootEnv and fails above.
	t.Skipf("skipped: %s", why)
}

var _ = BeforeSuite(func() {
	auditDir := GinkgoT().TempDir()
	auditLog = filepath.Join(auditDir, "audit.log")
	policy := filepath.Join(auditDir, "policy.yaml")
	Expect(os.WriteFile(policy, []byte(auditPolicy), 0o600)).To(Succeed())

	ctx, controlPlane = framework.StartSuite(framework.ControlPlaneOptions{
		APIServerArgs: map[string]string{"audit-policy-file": policy, "audit-log-path": auditLog},
		// node-lifecycle-controller lifts the not-ready taint the
		// apiserver puts on every new Node once kwok reports it Ready.
		ControllerManager: &cluster.ControllerManagerOptions{Controllers: []string{
			"disruption-controller", "deployment-controller", "replicaset-controller", "garbage-collector-controller",
			"serviceaccount-controller", "node-lifecycle-controller",
		}},
		Scheduler: true,
		Kwok:      &cluster.KwokOptions{},
	})
	GinkgoWriter.Printf("control plane, Karpenter and kwok logs in %s\n", controlPlane.Cluster.WorkDir)
	k8sClient = framework.NewAPI(ctx, controlPlane.Client)

	crds, err := cluster.KarpenterCRDs()
	Expect(err).NotTo(HaveOccurred())
	_, err = envtest.InstallCRDs(controlPlane.Config, envtest.CRDInstallOptions{Paths: []string{crds}, ErrorIfPathMissing: true})
	Expect(err).NotTo(HaveOccurred())

	Expect(k8sClient.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "karpenter"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: karpenterNamespace, Name: karpenterServiceAccount}},
	})).To(Succeed())
	kubeconfig, err := controlPlane.Cluster.WriteKubeconfig("karpenter",
		controlPlane.Cluster.ImpersonateServiceAccount(karpenterNamespace, karpenterServiceAccount))
	Expect(err).NotTo(HaveOccurred())
	_, err = controlPlane.Cluster.StartKarpenter(cluster.KarpenterOptions{
		Kubeconfig: kubeconfig,
		// Provision as soon as the evicted pods are pending: the
		// default window (1s idle, up to 10s) only slows the test.
		BatchIdleDuration: 100 * time.Millisecond,
		BatchMaxDuration:  time.Second,
	})
	Expect(err).NotTo(HaveOccurred())
})

// auditPolicy logs evictions, with who asked and the answer, and nothing
// else: the checks attribute each eviction to its client.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
    resources:
      - group: ""
        resources: ["pods/eviction"]
  - level: None
`
