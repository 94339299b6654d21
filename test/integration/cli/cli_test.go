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

package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers/nodeipam"
	"podnetwork.io/operator/internal/adapters/kubeproxy"
	"podnetwork.io/operator/internal/cli"
	"podnetwork.io/operator/internal/cli/app"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/refconsumer"
)

// t0 replaces every timestamp of a state read from the cluster before it is
// compared with a golden file, and the plugin looks at t0+90s: the state is
// the operator's, the ages are fixed.
var t0 = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

// read reads the cluster as the plugin does and fixes its timestamps.
func read() *cli.Cluster {
	GinkgoHelper()
	c, err := app.Read(ctx, k8sClient, nodeipam.ConsumerName, app.DefaultTargets())
	Expect(err).NotTo(HaveOccurred())
	fixed := metav1.NewTime(t0)
	if pn := c.PodNetwork; pn != nil {
		for i := range pn.Status.Ranges {
			pn.Status.Ranges[i].PhaseSince = &fixed
		}
		for i := range pn.Status.Conditions {
			pn.Status.Conditions[i].LastTransitionTime = fixed
		}
	}
	for i := range c.Consumers {
		c.Consumers[i].CreationTimestamp = fixed
		for j := range c.Consumers[i].Status.Conditions {
			c.Consumers[i].Status.Conditions[j].LastTransitionTime = fixed
		}
	}
	for i := range c.Nodes {
		c.Nodes[i].CreationTimestamp = fixed
	}
	return c
}

func statusText(c *cli.Cluster) string {
	GinkgoHelper()
	s := cli.BuildStatus(c, t0.Add(90*time.Second))
	var b strings.Builder
	Expect(cli.WriteStatusText(&b, &s)).To(Succeed())
	return b.String()
}

func checkText(c *cli.Cluster) (string, cli.CheckReport) {
	GinkgoHelper()
	r := cli.Check(c, cli.CheckOptions{Now: t0.Add(90 * time.Second), NewNodeGrace: time.Nanosecond})
	var b strings.Builder
	Expect(cli.WriteCheckText(&b, &r)).To(Succeed())
	return b.String(), r
}

// kubeadmConfig is kubeadm's kube-proxy configuration with clusterCIDR set
// to value.
func kubeadmConfig(value string) string {
	GinkgoHelper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "internal", "adapters", "kubeproxy", "testdata", "kubeadm.yaml"))
	Expect(err).NotTo(HaveOccurred())
	out, err := kubeproxy.SetClusterCIDR(string(b), value)
	Expect(err).NotTo(HaveOccurred())
	return out
}

func setKubeProxyConfig(value string) {
	GinkgoHelper()
	cm := &corev1.ConfigMap{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "kube-proxy"}, cm)).To(Succeed())
	cm.Data["config.conf"] = kubeadmConfig(value)
	Expect(k8sClient.Update(ctx, cm)).To(Succeed())
}

// addNode creates a node and, while the operator runs, waits for its
// podCIDRs, so blocks go to nodes in creation order.
func addNode(name string, labels map[string]string, wait bool) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, framework.Node(name).Labels(labels).Obj())).To(Succeed())
	if wait {
		Eventually(func() []string {
			n := &corev1.Node{}
			_ = k8sClient.Get(ctx, client.ObjectKey{Name: name}, n)
			return n.Spec.PodCIDRs
		}).ShouldNot(BeEmpty())
	}
}

func phases() map[string]v1alpha1.RangePhase {
	out := map[string]v1alpha1.RangePhase{}
	if pn, err := k8sClient.PodNetwork(); err == nil {
		for _, rs := range pn.Status.Ranges {
			out[rs.Name] = rs.Phase
		}
	}
	return out
}

var _ = Describe("kubectl podnetwork", Ordered, func() {
	var operator *framework.Process
	var holdNew atomic.Bool

	BeforeAll(func() {
		// kube-proxy's ConfigMap as kubeadm writes it and the adapter's
		// consumer as the adapter registers it; no adapter runs here, so the
		// consumer is made optional to let transitions go on.
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-proxy"},
			Data:       map[string]string{"config.conf": kubeadmConfig("10.244.0.0/16")},
		})).To(Succeed())
		Expect(k8sClient.Create(ctx, framework.Consumer("kube-proxy").Required(false).Obj())).To(Succeed())
	})

	It("shows a cluster without a PodNetwork and finds nothing wrong with it", func() {
		golden("status-none.text", statusText(read()))
		code, out, _ := run("check")
		Expect(code).To(Equal(app.ExitOK), out)
		Expect(out).To(ContainSubstring("0 errors, 2 warnings"))
		Expect(out).To(ContainSubstring("WARNING  operator  no Deployment labelled app.kubernetes.io/name=podnetwork-operator in any namespace"))
	})

	It("shows the steady state the operator reaches, one screen, and its JSON", func() {
		mgr, err := framework.NewManager(suite.ControlPlane.Config)
		Expect(err).NotTo(HaveOccurred())
		plugin := &refconsumer.Consumer{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Name: "plugin", Required: true,
			Hold: func(rs v1alpha1.RangeStatus) bool { return holdNew.Load() && rs.Name == "c" }}
		Expect(plugin.SetupWithManager(mgr)).To(Succeed())
		Expect(plugin.Register(ctx)).To(Succeed())
		framework.StartManager(ctx, "the plugin", mgr)
		operator = framework.StartOperator(ctx, suite.ControlPlane.Config)

		setKubeProxyConfig("10.240.0.0/12")
		gpu := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"gpu"}}}}}}
		Expect(k8sClient.Create(ctx, framework.PodNetwork().Range("a", "10.244.0.0/16").
			Ranges(framework.Range("gpu", "10.250.0.0/27").NodeMaskSize(28).NodeSelector(gpu).Obj()).Obj())).To(Succeed())
		Eventually(phases).Should(Equal(map[string]v1alpha1.RangePhase{"a": v1alpha1.RangePhaseActive, "gpu": v1alpha1.RangePhaseActive}))
		addNode("n1", nil, true)
		addNode("n2", nil, true)
		addNode("g1", map[string]string{"pool": "gpu"}, true)
		Eventually(k8sClient.Usage).WithArguments("gpu").Should(Equal(v1alpha1.NewRangeUsage(2, 1, 1, 0)))
		Eventually(k8sClient.Usage).WithArguments("a").Should(Equal(v1alpha1.NewRangeUsage(256, 2, 254, 0)))
		Eventually(func() metav1.ConditionStatus {
			if c := k8sClient.Condition(v1alpha1.ReadyCondition); c != nil {
				return c.Status
			}
			return ""
		}).Should(Equal(metav1.ConditionTrue))

		golden("status-steady.text", statusText(read()))
		text, report := checkText(read())
		golden("check-steady.text", text)
		Expect(report.Errors).To(BeZero(), text)

		code, out, errOut := run("status", "-o", "json")
		Expect(code).To(Equal(app.ExitOK), errOut)
		var s cli.StatusReport
		Expect(json.Unmarshal([]byte(out), &s)).To(Succeed())
		Expect(s.APIVersion).To(Equal("cli.podnetwork.io/v1alpha1"))
		Expect(s.Kind).To(Equal(cli.KindStatusReport))
		Expect(s.Groups).To(HaveLen(2))
		Expect(s.Groups[1].Selector).To(Equal("pool in (gpu)"))
		Expect(s.Groups[1].Joinable).To(Equal(int64(1)))
		code, out, errOut = run("check")
		Expect(code).To(Equal(app.ExitOK), out+errOut)
	})

	It("plans a change without writing it, and the operator then does what it planned", func() {
		before := k8sClient.GetPodNetwork()
		// svc overlaps the ServiceCIDR: the change gets stuck there, exit 1.
		code, out, errOut := run("plan", "--add", "b=10.245.0.0/16", "--add", "svc=10.96.0.0/16", "--remove", "a", "-o", "json")
		Expect(code).To(Equal(app.ExitProblems), errOut)
		Expect(errOut).To(BeEmpty())
		var plan cli.PlanReport
		Expect(json.Unmarshal([]byte(out), &plan)).To(Succeed())
		Expect(plan.Kind).To(Equal(cli.KindPlanReport))
		Expect(plan.Settled).To(BeTrue())
		Expect(plan.Outcome).To(Equal(cli.OutcomeStuck))
		Expect(plan.Stuck).To(ConsistOf(HavePrefix("svc: stays Pending: invalid: ServiceCIDROverlap")))
		Expect(k8sClient.GetPodNetwork().ResourceVersion).To(Equal(before.ResourceVersion), "plan wrote the PodNetwork")

		code, text, errOut := run("plan", "--add", "b=10.245.0.0/16", "--add", "svc=10.96.0.0/16", "--remove", "a")
		Expect(code).To(Equal(app.ExitProblems), errOut)
		golden("plan-transition.text", text)
		// Without svc, it proceeds: a stays Draining until its nodes are
		// replaced, which is the next step, not a dead end.
		code, out, errOut = run("plan", "--add", "b=10.245.0.0/16", "--remove", "a", "-o", "jsonpath={.outcome}")
		Expect(code).To(Equal(app.ExitOK), errOut)
		Expect(out).To(Equal(string(cli.OutcomeProceeds)))

		want := map[string]v1alpha1.RangePhase{}
		for _, r := range plan.Ranges {
			if r.Eventually != cli.Purged {
				want[r.Name] = r.Eventually
			}
		}
		Expect(want).To(Equal(map[string]v1alpha1.RangePhase{
			"a": v1alpha1.RangePhaseDraining, "b": v1alpha1.RangePhaseActive,
			"gpu": v1alpha1.RangePhaseActive, "svc": v1alpha1.RangePhasePending,
		}), "the plan itself")

		Expect(k8sClient.EditRanges(func(rs []v1alpha1.PodCIDRRange) []v1alpha1.PodCIDRRange {
			rs = slices.DeleteFunc(rs, func(r v1alpha1.PodCIDRRange) bool { return r.Name == "a" })
			return append(rs, framework.Range("b", "10.245.0.0/16").Obj(), framework.Range("svc", "10.96.0.0/16").Obj())
		})).To(Succeed())
		Eventually(phases).Should(Equal(want))
		Consistently(phases, "2s").Should(Equal(want))
		pn := k8sClient.GetPodNetwork()
		for _, r := range plan.Ranges {
			rs := pn.Status.FindRange(r.Name)
			if rs == nil {
				continue
			}
			Expect(rs.Holders).To(Equal(r.Holders), "holders of %s", r.Name)
			Expect(rs.InvalidReason).To(Equal(v1alpha1.RangeInvalidReason(strings.SplitN(r.Invalid, ":", 2)[0])), "invalidReason of %s", r.Name)
			Expect(rs.Rejections).To(Equal(r.Rejections), "rejections of %s", r.Name)
		}
		Eventually(k8sClient.Usage).WithArguments("b").ShouldNot(Equal(v1alpha1.RangeUsage{}))
		golden("status-transition.text", statusText(read()))
	})

	It("shows the drain schedule of the Draining range's nodes and drain assist's progress", showsDrainSchedule)

	It("refuses, through the API server's dry-run, a change the CRD's rules reject", func() {
		code, out, _ := run("plan", "--add", "bad=10.245.1.0/16")
		Expect(code).To(Equal(app.ExitProblems))
		Expect(out).To(ContainSubstring("The API server refuses this change"))
		Expect(out).To(ContainSubstring("canonical form"))

		code, out, _ = run("plan", "--add", "x=10.245.0.0/17,nodeMaskSize=26")
		Expect(code).To(Equal(app.ExitProblems))
		Expect(out).To(ContainSubstring("ranges must not overlap"))
		Expect(out).To(ContainSubstring(`overlaps range "x" (10.245.0.0/17, nodeMaskSize 26)`), "plan names the ranges the CRD's message cannot")

		manifest := filepath.Join(GinkgoT().TempDir(), "pn.yaml")
		Expect(os.WriteFile(manifest, []byte("apiVersion: podnetwork.io/v1alpha1\nkind: PodNetwork\nmetadata:\n  name: default\nspec:\n  ranges:\n  - name: b\n    cidr: 10.245.0.0/16\n  - name: gpu\n    cidr: 10.250.0.0/27\n    nodeMaskSize: 28\n"), 0o600)).To(Succeed())
		code, out, errOut := run("plan", "-f", manifest)
		Expect(code).To(Equal(app.ExitOK), errOut)
		Expect(out).To(ContainSubstring("remove svc (10.96.0.0/16)"))
		Expect(out).To(ContainSubstring("change the nodes of gpu to: all nodes"))

		code, _, errOut = run("plan")
		Expect(code).To(Equal(app.ExitUsage))
		Expect(errOut).To(ContainSubstring("either -f FILE or --add/--remove"))
		code, out, errOut = run("plan", "-f", filepath.Join(GinkgoT().TempDir(), "missing.yaml"))
		Expect(code).To(Equal(app.ExitUsage))
		Expect(out).To(BeEmpty())
		Expect(errOut).To(ContainSubstring("no such file or directory"))

		code, out, _ = run("plan", "--add", "bad=10.245.1.0/16", "-o", "yaml")
		Expect(code).To(Equal(app.ExitProblems))
		var plan cli.PlanReport
		Expect(yaml.Unmarshal([]byte(out), &plan)).To(Succeed())
		Expect(plan.Outcome).To(Equal(cli.OutcomeRejected))
		Expect(plan.Rejection.By).To(Equal(cli.RejectedByValidation))
		Expect(plan.Rejection.Reason).To(Equal("Invalid"))
	})

	It("tells an admission policy's refusal of the change (exit 1) from a missing permission (exit 3)", func() {
		policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "no-reserved-ranges"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				FailurePolicy: ptr.To(admissionregistrationv1.Fail),
				MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{"podnetwork.io"}, APIVersions: []string{"*"}, Resources: []string{"podnetworks"}},
					},
				}}},
				Validations: []admissionregistrationv1.Validation{{
					Expression: "object.spec.ranges.all(r, !r.name.startsWith('reserved'))",
					Message:    "ranges named reserved* belong to the network team",
					Reason:     ptr.To(metav1.StatusReasonForbidden),
				}},
			},
		}
		binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "no-reserved-ranges"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy.Name,
				ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}},
		}
		Expect(k8sClient.Create(ctx, policy)).To(Succeed())
		Expect(k8sClient.Create(ctx, binding)).To(Succeed())
		DeferCleanup(func() {
			Expect(k8sClient.Delete(ctx, binding)).To(Succeed())
			Expect(k8sClient.Delete(ctx, policy)).To(Succeed())
		})
		// The policy takes a moment to reach the admission chain.
		var plan cli.PlanReport
		Eventually(func(g Gomega) {
			code, out, errOut := run("plan", "--add", "reserved=10.247.0.0/16", "-o", "json")
			g.Expect(code).To(Equal(app.ExitProblems), errOut)
			g.Expect(json.Unmarshal([]byte(out), &plan)).To(Succeed())
			g.Expect(plan.Outcome).To(Equal(cli.OutcomeRejected))
		}).Should(Succeed())
		Expect(plan.Rejection.By).To(Equal(cli.RejectedByAdmission))
		Expect(plan.Rejection.Reason).To(Equal("Forbidden"))
		Expect(plan.Rejection.Message).To(ContainSubstring("ValidatingAdmissionPolicy 'no-reserved-ranges' with binding 'no-reserved-ranges' denied request: ranges named reserved* belong to the network team"))
		code, out, _ := run("plan", "--add", "reserved=10.247.0.0/16")
		Expect(code).To(Equal(app.ExitProblems))
		Expect(out).To(HavePrefix("An admission check of the API server refuses this change (server-side dry-run); nothing was written:\n"))

		// A user who may read everything but not update PodNetworks: the
		// API server's authorization refuses the dry-run, which says nothing
		// about the change.
		grant("reader", []rbacv1.PolicyRule{
			{APIGroups: []string{"podnetwork.io"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{"", "apps", "networking.k8s.io"}, Resources: []string{"nodes", "pods", "configmaps", "daemonsets", "deployments", "servicecidrs"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get"}},
		})
		code, out, errOut := run("plan", "--as", "reader", "--add", "d=10.247.0.0/16")
		Expect(code).To(Equal(app.ExitFailed))
		Expect(out).To(BeEmpty())
		Expect(errOut).To(ContainSubstring(`podnetworks.podnetwork.io "default" is forbidden: User "reader" cannot update resource "podnetworks" in API group "podnetwork.io" at the cluster scope`))
		Expect(errOut).To(ContainSubstring("hint: user \"reader\" may not update podnetworks.podnetwork.io: `kubectl auth can-i update podnetworks.podnetwork.io` says so too."))
		code, _, errOut = run("status", "--as", "reader")
		Expect(code).To(Equal(app.ExitOK), errOut)
	})

	It("shows what a user may read, names what it may not, and exits 3", func() {
		// podnetwork.io objects only: no nodes, no ServiceCIDRs, none of
		// the adapters' objects.
		grant("netviewer", []rbacv1.PolicyRule{{APIGroups: []string{"podnetwork.io"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch"}}})
		code, out, errOut := run("--as", "netviewer", "status")
		Expect(code).To(Equal(app.ExitFailed))
		Expect(out).To(HavePrefix("PodNetwork default: Ready="))
		Expect(out).To(ContainSubstring("\nNodes: could not be read\n"))
		Expect(out).To(MatchRegexp(`\nRANGES\n(.*\n)*b\s+10\.245\.0\.0/16\s+Active`))
		Expect(out).To(ContainSubstring("\nCONSUMERS\n"))
		Expect(errOut).To(HavePrefix("error: the output above leaves out what the plugin was not allowed to read:\n"))
		for _, what := range []string{
			`  nodes: nodes is forbidden: User "netviewer" cannot list resource "nodes" in API group "" at the cluster scope`,
			`  servicecidrs: servicecidrs.networking.k8s.io is forbidden: User "netviewer" cannot list resource "servicecidrs" in API group "networking.k8s.io" at the cluster scope`,
			`  configmaps kube-system/kube-proxy: configmaps "kube-proxy" is forbidden: User "netviewer" cannot get resource "configmaps" in API group "" in the namespace "kube-system"`,
			`  deployments: deployments.apps is forbidden: User "netviewer" cannot list resource "deployments" in API group "apps" at the cluster scope`,
			"hint: the permissions the plugin needs are listed in docs/kubectl-plugin.md#permissions",
		} {
			Expect(errOut).To(ContainSubstring(what))
		}

		code, out, errOut = run("check", "--as", "netviewer", "-o", "json")
		Expect(code).To(Equal(app.ExitFailed), errOut)
		var report cli.CheckReport
		Expect(json.Unmarshal([]byte(out), &report)).To(Succeed())
		skipped := map[string]string{}
		for _, c := range report.Checks {
			skipped[c.Name] = c.Skipped
		}
		Expect(skipped).To(Equal(map[string]string{
			cli.CheckPodNetwork: "", cli.CheckOverlaps: "nodes could not be read", cli.CheckForeign: "nodes could not be read",
			cli.CheckWithoutPodCIDRs: "nodes could not be read", cli.CheckAcks: "", cli.CheckAdapterConfig: "",
			cli.CheckOperator: "deployments could not be read",
		}))
		Expect(report.Unreadable).To(HaveLen(5))

		// --watch says so as soon as it happens, and exits 3 in the end.
		out2, errOut2 := gbytes.NewBuffer(), gbytes.NewBuffer()
		wctx, cancel := context.WithCancel(ctx)
		done := make(chan int)
		go func() {
			defer GinkgoRecover()
			done <- app.Run(wctx, []string{"status", "--watch", "--as", "netviewer", "--kubeconfig", suite.ControlPlane.Cluster.KubeconfigPath}, out2, errOut2, app.Options{})
		}()
		Eventually(errOut2).Should(gbytes.Say(`warning: could not read nodes, servicecidrs, configmaps kube-system/kube-proxy, daemonsets kube-system/kube-proxy, deployments: the output leaves out what depends on it\n`))
		Eventually(out2).Should(gbytes.Say(`Nodes: could not be read`))
		cancel()
		Eventually(done).Should(Receive(Equal(app.ExitFailed)))

		// plan predicts from everything or not at all.
		code, out, errOut = run("plan", "--as", "netviewer", "--add", "d=10.247.0.0/16")
		Expect(code).To(Equal(app.ExitFailed))
		Expect(out).To(BeEmpty())
		Expect(errOut).To(ContainSubstring("plan predicts from everything the plugin reads, and it may not read nodes, servicecidrs, configmaps kube-system/kube-proxy, daemonsets kube-system/kube-proxy"))

		// Nothing readable: no output.
		code, out, errOut = run("status", "--as", "nobody")
		Expect(code).To(Equal(app.ExitFailed))
		Expect(out).To(BeEmpty())
		Expect(errOut).To(ContainSubstring(`User "nobody" cannot get resource "podnetworks"`))
	})

	It("takes kubectl's global flags before the command, and credentials from an exec plugin", func() {
		var stdout, stderr bytes.Buffer
		code := app.Run(ctx, []string{"--kubeconfig", suite.ControlPlane.Cluster.KubeconfigPath, "--request-timeout", "10s", "status", "-o", "jsonpath={.kind}"}, &stdout, &stderr, app.Options{})
		Expect(code).To(Equal(app.ExitOK), stderr.String())
		Expect(stdout.String()).To(Equal(cli.KindStatusReport))

		// A kubeconfig whose user runs an exec credential plugin, which
		// hands out the admin's client certificate.
		cfg := suite.ControlPlane.Cluster.Config
		dir := GinkgoT().TempDir()
		cred, err := json.Marshal(map[string]any{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
			"status": map[string]string{"clientCertificateData": string(cfg.CertData), "clientKeyData": string(cfg.KeyData)}})
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(dir, "cred.json"), cred, 0o600)).To(Succeed())
		plugin := filepath.Join(dir, "credential-plugin")
		Expect(os.WriteFile(plugin, []byte("#!/bin/sh\nexec cat "+filepath.Join(dir, "cred.json")+"\n"), 0o700)).To(Succeed())
		kc := clientcmdapi.NewConfig()
		kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
		kc.AuthInfos["exec"] = &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{APIVersion: "client.authentication.k8s.io/v1", Command: plugin,
			InteractiveMode: clientcmdapi.NeverExecInteractiveMode}}
		kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "exec"}
		kc.Contexts["elsewhere"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "none"}
		kc.CurrentContext = "elsewhere"
		path := filepath.Join(dir, "kubeconfig")
		Expect(clientcmd.WriteToFile(*kc, path)).To(Succeed())
		stdout.Reset()
		stderr.Reset()
		code = app.Run(ctx, []string{"--context", "envtest", "status", "--kubeconfig", path, "-o", "jsonpath={.kind}"}, &stdout, &stderr, app.Options{})
		Expect(code).To(Equal(app.ExitOK), stderr.String())
		Expect(stdout.String()).To(Equal(cli.KindStatusReport))
	})

	It("redraws the status with --watch when the PodNetwork changes", func() {
		buf := gbytes.NewBuffer()
		wctx, cancel := context.WithCancel(ctx)
		done := make(chan int)
		go func() {
			defer GinkgoRecover()
			done <- app.Run(wctx, []string{"status", "--watch", "--kubeconfig", suite.ControlPlane.Cluster.KubeconfigPath}, buf, GinkgoWriter, app.Options{})
		}()
		Eventually(buf).Should(gbytes.Say(`svc\s+10\.96\.0\.0/16\s+Pending`))
		holdNew.Store(true)
		Expect(k8sClient.EditRanges(func(rs []v1alpha1.PodCIDRRange) []v1alpha1.PodCIDRRange {
			return append(rs, framework.Range("c", "10.246.0.0/16").Obj())
		})).To(Succeed())
		Eventually(buf).Should(gbytes.Say(`c\s+10\.246\.0\.0/16\s+Pending`))
		Eventually(buf).Should(gbytes.Say(`awaiting: plugin`))
		cancel()
		Eventually(done).Should(Receive(Equal(app.ExitOK)))
	})

	It("streams whole documents with --watch -o json and -o yaml", func() {
		for _, format := range []string{"json", "yaml"} {
			out := gbytes.NewBuffer()
			wctx, cancel := context.WithCancel(ctx)
			done := make(chan int)
			go func() {
				defer GinkgoRecover()
				done <- app.Run(wctx, []string{"status", "-w", "-o", format, "--refresh", "200ms", "--kubeconfig", suite.ControlPlane.Cluster.KubeconfigPath},
					out, GinkgoWriter, app.Options{})
			}()
			Eventually(func() int { return bytes.Count(out.Contents(), []byte("kind")) }).Should(BeNumerically(">=", 3))
			cancel()
			Eventually(done).Should(Receive(Equal(app.ExitOK)))
			var docs []cli.StatusReport
			switch format {
			case "json":
				dec := json.NewDecoder(bytes.NewReader(out.Contents()))
				for dec.More() {
					var s cli.StatusReport
					Expect(dec.Decode(&s)).To(Succeed())
					docs = append(docs, s)
				}
			case "yaml":
				Expect(string(out.Contents())).NotTo(HavePrefix("---"))
				for doc := range strings.SplitSeq(string(out.Contents()), "---\n") {
					var s cli.StatusReport
					Expect(yaml.UnmarshalStrict([]byte(doc), &s)).To(Succeed())
					docs = append(docs, s)
				}
			}
			Expect(len(docs)).To(BeNumerically(">=", 3), format)
			for _, d := range docs {
				Expect(d.Kind).To(Equal(cli.KindStatusReport), format)
				Expect(d.Ranges).NotTo(BeEmpty(), format)
			}
		}
	})

	It("plans again when the PodNetwork changes under it, and always ends", func() {
		// A dry-run that conflicts: a status write lands between plan's read
		// and its dry-run, every time the first dry-run is sent.
		var codes []int
		var mu sync.Mutex
		cfg := rest.CopyConfig(suite.ControlPlane.Config)
		cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
			return roundTripper(func(req *http.Request) (*http.Response, error) {
				dryRun := req.Method == http.MethodPut && strings.HasSuffix(req.URL.Path, "/podnetworks/default") && req.URL.Query().Get("dryRun") == "All"
				mu.Lock()
				first := dryRun && len(codes) == 0
				mu.Unlock()
				if first {
					_, err := framework.EditStatus(ctx, k8sClient, tick)
					Expect(err).NotTo(HaveOccurred())
				}
				resp, err := rt.RoundTrip(req)
				if dryRun && err == nil {
					mu.Lock()
					codes = append(codes, resp.StatusCode)
					mu.Unlock()
				}
				return resp, err
			})
		}
		var stdout, stderr bytes.Buffer
		code := app.Run(ctx, []string{"plan", "--remove", "svc", "-o", "jsonpath={.outcome}"}, &stdout, &stderr, app.Options{Config: cfg})
		Expect(code).To(Equal(app.ExitOK), stderr.String())
		Expect(stdout.String()).To(Equal(string(cli.OutcomeProceeds)))
		// The operator takes the edit back at once, which may hit the
		// second dry-run too.
		Expect(codes[0]).To(Equal(http.StatusConflict))
		Expect(codes[len(codes)-1]).To(Equal(http.StatusOK))
		Expect(len(codes)).To(BeNumerically("<=", app.PlanAttempts))

		// Fifty plans while the status changes four times a second: each
		// hand edit, and the operator's own write taking it back, moves the
		// resourceVersion.
		churn, stop := context.WithCancel(ctx)
		writes := make(chan int)
		go func() {
			defer GinkgoRecover()
			n := 0
			for churn.Err() == nil {
				if _, err := framework.EditStatus(churn, k8sClient, tick); err == nil {
					n++
				}
				select {
				case <-churn.Done():
				case <-time.After(250 * time.Millisecond):
				}
			}
			writes <- n
		}()
		codes = nil
		for i := range 50 {
			stdout.Reset()
			stderr.Reset()
			code := app.Run(ctx, []string{"plan", "--remove", "svc", "-o", "json"}, &stdout, &stderr, app.Options{Config: cfg})
			Expect(code).To(Equal(app.ExitOK), "run %d: %s", i, stderr.String())
			var plan cli.PlanReport
			Expect(json.Unmarshal(stdout.Bytes(), &plan)).To(Succeed(), "run %d", i)
			Expect(plan.Outcome).To(Equal(cli.OutcomeProceeds), "run %d", i)
		}
		stop()
		var n int
		Eventually(writes).Should(Receive(&n))
		conflicts := 0
		for _, c := range codes {
			if c == http.StatusConflict {
				conflicts++
			}
		}
		GinkgoWriter.Printf("50 plans, %d status writes, %d dry-runs, %d conflicts\n", n, len(codes), conflicts)
		Expect(n).To(BeNumerically(">=", 5))
		Expect(conflicts).To(BeNumerically(">", 0), "the churn never hit a plan")
		// The operator takes its status back.
		Eventually(func() string {
			return k8sClient.Condition(v1alpha1.ReadyCondition).Message
		}).ShouldNot(HavePrefix("tick"))
	})

	It("finds, with the operator stopped, what breaks the pod network", func() {
		Expect(operator.Stop()).To(Succeed())
		n1 := &corev1.Node{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "n1"}, n1)).To(Succeed())
		Expect(k8sClient.Create(ctx, framework.Node("x-foreign").PodCIDRs("10.99.0.0/24").Obj())).To(Succeed())
		Expect(k8sClient.Create(ctx, framework.Node("x-twin").PodCIDRs(n1.Spec.PodCIDRs...).Obj())).To(Succeed())
		addNode("x-late", nil, false)
		// kubeadm's ConfigMap applied again: the single original range.
		setKubeProxyConfig("10.244.0.0/16")

		text, report := checkText(read())
		golden("check-broken.text", text)
		var checks []string
		for _, f := range report.Findings {
			if f.Severity == cli.SeverityError {
				checks = append(checks, f.Check)
			}
		}
		Expect(checks).To(ContainElements(cli.CheckOverlaps, cli.CheckForeign, cli.CheckWithoutPodCIDRs, cli.CheckAdapterConfig))
		code, out, _ := run("check", "--new-node-grace", "1ns")
		Expect(code).To(Equal(app.ExitProblems), out)
	})

	It("predicts a change stuck on a required consumer that has never answered", func() {
		Expect(k8sClient.Create(ctx, framework.Consumer("silent").Required(true).Obj())).To(Succeed())
		code, out, errOut := run("plan", "--add", "d=10.247.0.0/16", "-o", "json")
		Expect(code).To(Equal(app.ExitProblems), errOut)
		var plan cli.PlanReport
		Expect(json.Unmarshal([]byte(out), &plan)).To(Succeed())
		Expect(plan.Outcome).To(Equal(cli.OutcomeStuck))
		Expect(plan.Stuck).To(ContainElement("d: stays Pending: waits for silent, which has never written its status"))
		for _, r := range plan.Ranges {
			if r.Name == "d" {
				Expect(r.Eventually).To(Equal(v1alpha1.RangePhasePending))
				Expect(r.WaitsFor).To(Equal([]string{"silent"}))
			}
		}
	})

	It("tells the operator's health: its Deployment's ready replicas and the leader-election Lease", func() {
		// The objects only: nothing runs them, their status is set by hand.
		const ns = "podnetwork-system"
		Expect(k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		labels := map[string]string{cli.OperatorLabel: cli.OperatorName}
		dep := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "podnetwork-operator", Labels: labels},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](2),
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "manager", Image: "podnetwork-operator:test"}}},
				},
			},
		}
		Expect(k8sClient.Create(ctx, dep)).To(Succeed())
		DeferCleanup(func() { Expect(k8sClient.Delete(ctx, dep)).To(Succeed()) })
		setReady := func(ready int32) {
			GinkgoHelper()
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(dep), dep)).To(Succeed())
			dep.Status.Replicas, dep.Status.ReadyReplicas, dep.Status.AvailableReplicas = 2, ready, ready
			Expect(k8sClient.Status().Update(ctx, dep)).To(Succeed())
		}
		renewed := metav1.NewMicroTime(time.Now())
		lease := &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cli.LeaseName},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("podnetwork-operator-7d9f_1"), LeaseDurationSeconds: ptr.To[int32](15),
				AcquireTime: &renewed, RenewTime: &renewed},
		}
		Expect(k8sClient.Create(ctx, lease)).To(Succeed())
		DeferCleanup(func() { Expect(k8sClient.Delete(ctx, lease)).To(Succeed()) })

		// Healthy: 2/2 ready, a leader renewing its Lease.
		setReady(2)
		code, out, errOut := run("status")
		Expect(code).To(Equal(app.ExitOK), errOut)
		Expect(out).To(MatchRegexp(`\nOperator: Deployment podnetwork-system/podnetwork-operator 2/2 ready; leader podnetwork-operator-7d9f_1 for \d+s \(renewed \d+s ago\)\n`))
		// Whatever else the earlier cases left broken, the operator is fine.
		_, out, errOut = run("check", "--operator-namespace", ns, "-o", "json")
		Expect(errOut).To(BeEmpty())
		var report cli.CheckReport
		Expect(json.Unmarshal([]byte(out), &report)).To(Succeed())
		for _, f := range report.Findings {
			Expect(f.Check).NotTo(Equal(cli.CheckOperator), "%+v", f)
		}
		Expect(report.Operator).NotTo(BeNil())
		Expect(report.Operator.Namespace).To(Equal(ns))
		Expect(report.Operator.Deployments).To(HaveLen(1))
		Expect(report.Operator.Deployments[0].ReadyReplicas).To(Equal(int32(2)))
		Expect(report.Operator.Deployments[0].Lease.Expired).To(BeFalse())

		// The demo's case: the Deployment at 0/2 and the Lease long expired.
		setReady(0)
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(lease), lease)).To(Succeed())
		lease.Spec.RenewTime = ptr.To(metav1.NewMicroTime(time.Now().Add(-time.Hour)))
		Expect(k8sClient.Update(ctx, lease)).To(Succeed())
		code, out, errOut = run("check")
		Expect(code).To(Equal(app.ExitProblems), errOut)
		Expect(out).To(MatchRegexp(`\noperator\s+2 errors\s+Deployment podnetwork-system/podnetwork-operator\n`))
		Expect(out).To(ContainSubstring("ERROR    operator  deployment/podnetwork-system/podnetwork-operator: 0/2 replicas ready: no operator runs, nothing reconciles"))
		Expect(out).To(MatchRegexp(`ERROR    operator  lease/podnetwork-system/podnetwork-operator: the Lease held by podnetwork-operator-7d9f_1 expired \d+m(\d+s)? ago: no replica leads`))
		code, out, errOut = run("status", "-o", "json")
		Expect(code).To(Equal(app.ExitOK), errOut)
		var s cli.StatusReport
		Expect(json.Unmarshal([]byte(out), &s)).To(Succeed())
		Expect(s.Operator.Deployments).To(HaveLen(1))
		d := s.Operator.Deployments[0]
		Expect(d.DesiredReplicas).To(Equal(int32(2)))
		Expect(d.ReadyReplicas).To(Equal(int32(0)))
		Expect(d.Lease.Expired).To(BeTrue())
		Expect(*d.Lease.RenewedSecondsAgo).To(BeNumerically(">=", 3600))

		// Another namespace: no Deployment there, a warning only.
		code, out, _ = run("status", "--operator-namespace", "elsewhere")
		Expect(code).To(Equal(app.ExitOK))
		Expect(out).To(ContainSubstring("\nOperator: no Deployment labelled app.kubernetes.io/name=podnetwork-operator in namespace elsewhere\n"))

		// Allowed the Deployments but not the Leases: it says so, and exits 3.
		grant("leaseless", []rbacv1.PolicyRule{
			{APIGroups: []string{"podnetwork.io"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{"", "apps", "networking.k8s.io"}, Resources: []string{"nodes", "pods", "configmaps", "daemonsets", "deployments", "servicecidrs"}, Verbs: []string{"get", "list", "watch"}},
		})
		code, out, errOut = run("status", "--as", "leaseless")
		Expect(code).To(Equal(app.ExitFailed))
		Expect(out).To(ContainSubstring("\nOperator: Deployment podnetwork-system/podnetwork-operator 0/2 ready; Lease podnetwork-operator could not be read\n"))
		Expect(errOut).To(ContainSubstring(`  leases podnetwork-system/podnetwork-operator: leases.coordination.k8s.io "podnetwork-operator" is forbidden: User "leaseless" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "podnetwork-system"`))
	})

	It("reads the nodes in pages", func() {
		k8sClient.CreateNodes("many", 2*app.PageSize+10)
		var nodeLists []string
		var mu sync.Mutex
		cfg := rest.CopyConfig(suite.ControlPlane.Config)
		cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
			return roundTripper(func(req *http.Request) (*http.Response, error) {
				if req.Method == http.MethodGet && req.URL.Path == "/api/v1/nodes" {
					mu.Lock()
					nodeLists = append(nodeLists, req.URL.RawQuery)
					mu.Unlock()
				}
				return rt.RoundTrip(req)
			})
		}
		var stdout, stderr bytes.Buffer
		code := app.Run(ctx, []string{"status", "-o", "json"}, &stdout, &stderr, app.Options{Config: cfg})
		Expect(code).To(Equal(app.ExitOK), stderr.String())
		var s cli.StatusReport
		Expect(json.Unmarshal(stdout.Bytes(), &s)).To(Succeed())
		Expect(*s.Nodes).To(Equal(len(k8sClient.Nodes())))
		Expect(nodeLists).To(HaveLen(3))
		for i, raw := range nodeLists {
			q, err := url.ParseQuery(raw)
			Expect(err).NotTo(HaveOccurred())
			Expect(q.Get("limit")).To(Equal("500"))
			Expect(q.Get("continue") != "").To(Equal(i > 0), "page %d: %s", i+1, raw)
		}
	})

	It("names the pool that owns an autoscaled range instead of saying there is none, and shows the pool", func() {
		// The operator is stopped by now: the set is read as it is.
		set := &v1alpha1.AutoscaledRangeSet{
			ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.AutoscaledRangeSetName},
			Spec: &v1alpha1.AutoscaledRangeSetSpec{Ranges: []v1alpha1.AutoscaledRange{
				{Name: "gpu-1", Pool: "gpu", CIDR: "10.252.0.0/26", NodeMaskSize: 28, AddedTime: ptr.To(metav1.NewTime(t0))},
			}},
		}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		DeferCleanup(func() { Expect(k8sClient.Delete(ctx, set)).To(Succeed()) })

		code, out, errOut := run("plan", "--remove", "gpu-1")
		Expect(code).To(Equal(app.ExitUsage), out)
		Expect(out).To(BeEmpty())
		Expect(errOut).To(HavePrefix(`error: --remove gpu-1: range "gpu-1" is not in spec.ranges: pool gpu of AutoscaledRangeSet default added it, and the autoscaler owns it. To remove it, edit pool gpu in the PodNetwork's spec.autoscaling.pools`))
		Expect(errOut).NotTo(ContainSubstring("there is no range"))

		code, out, errOut = run("status", "-o", "json")
		Expect(code).To(Equal(app.ExitOK), errOut)
		var s cli.StatusReport
		Expect(json.Unmarshal([]byte(out), &s)).To(Succeed())
		Expect(s.Autoscaling).NotTo(BeNil())
		Expect(s.Autoscaling.Pools).To(HaveLen(1))
		Expect(s.Autoscaling.Pools[0].Name).To(Equal("gpu"))
		Expect(s.Autoscaling.Pools[0].Ranges).To(Equal([]string{"gpu-1"}))
		code, out, _ = run("status")
		Expect(code).To(Equal(app.ExitOK))
		Expect(out).To(MatchRegexp(`\nAUTOSCALING \(mode Off\)\nPOOL\s+CIDR\s+STATE\s+RANGES.*\ngpu\s+-\s+-\s+gpu-1\s`))
	})
})

// roundTripper is a function as an http.RoundTripper.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// tick changes the message of the Ready condition: a status write the
// operator then takes back.
func tick(s *v1alpha1.PodNetworkStatus) string {
	for i := range s.Conditions {
		if s.Conditions[i].Type == v1alpha1.ReadyCondition {
			s.Conditions[i].Message = fmt.Sprintf("tick %d", time.Now().UnixNano())
			return "tick"
		}
	}
	return ""
}

// grant gives the user the rules, cluster-wide.
func grant(user string, rules []rbacv1.PolicyRule) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "test-" + user}, Rules: rules})).To(Succeed())
	Expect(k8sClient.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "test-" + user},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "test-" + user},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}})).To(Succeed())
}
