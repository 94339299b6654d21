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
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
		Expect(out).To(ContainSubstring("0 errors, 1 warning"))
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
		var s cli.Status
		Expect(json.Unmarshal([]byte(out), &s)).To(Succeed())
		Expect(s.Groups).To(HaveLen(2))
		Expect(s.Groups[1].Selector).To(Equal("pool in (gpu)"))
		Expect(s.Groups[1].Joinable).To(Equal(int64(1)))
		code, out, errOut = run("check")
		Expect(code).To(Equal(app.ExitOK), out+errOut)
	})

	It("plans a change without writing it, and the operator then does what it planned", func() {
		before := k8sClient.GetPodNetwork()
		code, out, errOut := run("plan", "--add", "b=10.245.0.0/16", "--add", "svc=10.96.0.0/16", "--remove", "a", "-o", "json")
		Expect(code).To(Equal(app.ExitOK), errOut)
		var plan cli.PlanResult
		Expect(json.Unmarshal([]byte(out), &plan)).To(Succeed())
		Expect(plan.Settled).To(BeTrue())
		Expect(k8sClient.GetPodNetwork().ResourceVersion).To(Equal(before.ResourceVersion), "plan wrote the PodNetwork")

		code, text, errOut := run("plan", "--add", "b=10.245.0.0/16", "--add", "svc=10.96.0.0/16", "--remove", "a")
		Expect(code).To(Equal(app.ExitOK), errOut)
		golden("plan-transition.text", text)

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

	It("refuses, through the API server's dry-run, a change the CRD's rules reject", func() {
		code, out, _ := run("plan", "--add", "bad=10.245.1.0/16")
		Expect(code).To(Equal(app.ExitProblems))
		Expect(out).To(ContainSubstring("The API server refuses this change"))
		Expect(out).To(ContainSubstring("canonical form"))

		code, out, _ = run("plan", "--add", "x=10.245.0.0/17,nodeMaskSize=26")
		Expect(code).To(Equal(app.ExitProblems))
		Expect(out).To(ContainSubstring("ranges must not overlap"))

		manifest := filepath.Join(GinkgoT().TempDir(), "pn.yaml")
		Expect(os.WriteFile(manifest, []byte("apiVersion: podnetwork.io/v1alpha1\nkind: PodNetwork\nmetadata:\n  name: default\nspec:\n  ranges:\n  - name: b\n    cidr: 10.245.0.0/16\n  - name: gpu\n    cidr: 10.250.0.0/27\n    nodeMaskSize: 28\n"), 0o600)).To(Succeed())
		code, out, errOut := run("plan", "-f", manifest)
		Expect(code).To(Equal(app.ExitOK), errOut)
		Expect(out).To(ContainSubstring("remove svc (10.96.0.0/16)"))
		Expect(out).To(ContainSubstring("change the nodes of gpu to: all nodes"))

		code, _, errOut = run("plan")
		Expect(code).To(Equal(app.ExitUsage))
		Expect(errOut).To(ContainSubstring("either -f FILE or --add/--remove"))
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
})
