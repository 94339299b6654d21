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

package docs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/internal/adapters/kubeproxy"
	"podnetwork.io/operator/internal/cli"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/cluster"
)

// placeholders are what the docs write for a value the reader picks, and
// the value the suite runs them with, in the cluster it builds: range a
// (10.244.0.0/16, held by nodes n1 and n2), range gpu (10.250.0.0/27, for
// nodes labelled pool=gpu, held by g1); 10.245.0.0/16 and 10.246.0.0/16
// are free. A placeholder the table does not know fails the suite: add it.
var placeholders = []struct{ placeholder, value string }{
	{"NAME=CIDR", "c=10.246.0.0/16"},
	{"NAMESPACE/NAME", "kube-system/kube-proxy"},
	{"NAMESPACE", "kube-system"},
	{"NAME", "a"},
	{"RANGE", "a"},
	{"POOL", "gpu"},
	{"NODE", "n1"},
	{"CIDR", "10.246.0.0/16"},
	{"FILE", "new.yaml"},
	{"<name>=<cidr>", "c=10.246.0.0/16"},
	{"<range>", "a"},
	{"<range-name>", "a"},
	{"<name>", "a"},
	{"<old>", "a"},
	{"<new>", "c=10.246.0.0/16"},
	{"<cidr>", "10.246.0.0/16"},
	{"<pool>", "gpu"},
	{"<node>", "n1"},
	{"<namespace>", "kube-system"},
}

// leftover finds a placeholder the table did not replace: <word>, or a
// word in capitals (NAME, CIDR, FILE).
var leftover = regexp.MustCompile(`<[A-Za-z][\w-]*>|\b[A-Z][A-Z0-9_]{2,}\b`)

// expectedExit lists commands of the docs that end with another exit code
// than 0 and cannot say so with a "# exit N" comment, keyed by the command
// as run (placeholders substituted), with why.
var expectedExit = map[string]struct {
	code int
	why  string
}{}

// watchFor is how long a --watch command runs before it is interrupted,
// as a user would with Ctrl-C.
const watchFor = 2 * time.Second

// manifest is the PodNetwork a `plan -f FILE` of the docs reads: the
// cluster's spec with range b=10.245.0.0/16 added. Written where a
// command names a file that does not exist.
var manifest []byte

var (
	commands   []docCommand
	extractErr error
)

func init() {
	root, err := cluster.RepoRoot()
	if err != nil {
		extractErr = err
		return
	}
	files, err := docFiles(root)
	if err != nil {
		extractErr = err
		return
	}
	commands, extractErr = extractCommands(root, files)
}

func kubeadmConfig(value string) string {
	GinkgoHelper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "internal", "adapters", "kubeproxy", "testdata", "kubeadm.yaml"))
	Expect(err).NotTo(HaveOccurred())
	out, err := kubeproxy.SetClusterCIDR(string(b), value)
	Expect(err).NotTo(HaveOccurred())
	return out
}

// documentedClusterRole is the ClusterRole docs/kubectl-plugin.md gives the
// plugin's users.
func documentedClusterRole() *rbacv1.ClusterRole {
	GinkgoHelper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs", "kubectl-plugin.md"))
	Expect(err).NotTo(HaveOccurred())
	for _, block := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		role := &rbacv1.ClusterRole{}
		if yaml.Unmarshal([]byte(block[1]), role) == nil && role.Kind == "ClusterRole" && role.Name == "kubectl-podnetwork" {
			return role
		}
	}
	Fail("docs/kubectl-plugin.md has no ClusterRole kubectl-podnetwork")
	return nil
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

var _ = Describe("the kubectl podnetwork commands of the docs", Ordered, ContinueOnFailure, func() {
	BeforeAll(func() {
		Expect(extractErr).NotTo(HaveOccurred())
		role := documentedClusterRole()
		Expect(k8sClient.Create(ctx, role)).To(Succeed())
		Expect(k8sClient.Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "docs-readers"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: docsGroup}},
		})).To(Succeed())

		// devGroup: the same role without the NetworkPolicies.
		dev := role.DeepCopy()
		dev.ObjectMeta = metav1.ObjectMeta{Name: "docs-dev"}
		dev.Rules = slices.DeleteFunc(dev.Rules, func(r rbacv1.PolicyRule) bool { return slices.Contains(r.Resources, "networkpolicies") })
		Expect(dev.Rules).To(HaveLen(len(role.Rules)-1), "the docs' ClusterRole has one rule for the NetworkPolicies")
		Expect(k8sClient.Create(ctx, dev)).To(Succeed())
		Expect(k8sClient.Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "docs-dev"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: dev.Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: devGroup}},
		})).To(Succeed())

		// kube-proxy's ConfigMap as kubeadm writes it, and its consumer as
		// the adapter registers it (optional: no adapter runs here).
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-proxy"},
			Data:       map[string]string{"config.conf": kubeadmConfig("10.240.0.0/12")},
		})).To(Succeed())
		Expect(k8sClient.Create(ctx, framework.Consumer("kube-proxy").Required(false).Obj())).To(Succeed())
		// A NetworkPolicy written for today's pod network.
		Expect(k8sClient.Create(ctx, &networkingv1.NetworkPolicy{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "allow-pods"},
			Spec: networkingv1.NetworkPolicySpec{
				Ingress: []networkingv1.NetworkPolicyIngressRule{{
					From:  []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.244.0.0/16"}}, {IPBlock: &networkingv1.IPBlock{CIDR: "10.250.0.0/27"}}},
					Ports: []networkingv1.NetworkPolicyPort{{Port: ptr.To(intstr.FromInt32(8080))}},
				}},
			},
		})).To(Succeed())

		// The operator, in-process but as the chart runs it: elected leader
		// through its Lease in podnetwork-system, beside the Deployment a
		// chart install makes (ready, as its pod would be).
		const operatorNamespace = "podnetwork-system"
		Expect(k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNamespace}})).To(Succeed())
		labels := map[string]string{cli.OperatorLabel: cli.OperatorName}
		deployment := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Namespace: operatorNamespace, Name: cli.OperatorName, Labels: labels},
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1), Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "manager", Image: "podnetwork-operator:docs"}}}}},
		}
		Expect(k8sClient.Create(ctx, deployment)).To(Succeed())
		deployment.Status = appsv1.DeploymentStatus{ObservedGeneration: deployment.Generation, Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, UpdatedReplicas: 1}
		Expect(k8sClient.Status().Update(ctx, deployment)).To(Succeed())
		operator := framework.RunOperator(ctx, cp.Config, func(o *controllers.Options) {
			o.LeaderElect, o.LeaderElectionNamespace = true, operatorNamespace
		})
		DeferCleanup(operator.Stop)
		Eventually(func() error {
			return k8sClient.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: cli.LeaseName}, &coordinationv1.Lease{})
		}).Should(Succeed())
		gpu := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"gpu"}}}}}}
		Expect(k8sClient.Create(ctx, framework.PodNetwork().Range("a", "10.244.0.0/16").
			Ranges(framework.Range("gpu", "10.250.0.0/27").NodeMaskSize(28).NodeSelector(gpu).Obj()).Obj())).To(Succeed())
		Eventually(phases).Should(Equal(map[string]v1alpha1.RangePhase{"a": v1alpha1.RangePhaseActive, "gpu": v1alpha1.RangePhaseActive}))
		for _, n := range []*corev1.Node{framework.Node("n1").Obj(), framework.Node("n2").Obj(), framework.Node("g1").Labels(map[string]string{"pool": "gpu"}).Obj()} {
			Expect(k8sClient.Create(ctx, n)).To(Succeed())
		}
		Eventually(k8sClient.NodesWithPodCIDRs).Should(Equal(3))
		// The usage the status reports lags the nodes by its interval.
		Eventually(k8sClient.Usage).WithArguments("a").Should(Equal(v1alpha1.NewRangeUsage(256, 2, 254, 0)))
		Eventually(k8sClient.Usage).WithArguments("gpu").Should(Equal(v1alpha1.NewRangeUsage(2, 1, 1, 0)))
		Eventually(func() metav1.ConditionStatus {
			if c := k8sClient.Condition(v1alpha1.ReadyCondition); c != nil {
				return c.Status
			}
			return ""
		}).Should(Equal(metav1.ConditionTrue))

		pn := k8sClient.GetPodNetwork()
		proposed := &v1alpha1.PodNetwork{TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "PodNetwork"},
			ObjectMeta: metav1.ObjectMeta{Name: pn.Name}, Spec: *pn.Spec.DeepCopy()}
		proposed.Spec.Ranges = append(proposed.Spec.Ranges, framework.Range("b", "10.245.0.0/16").Obj())
		var err error
		manifest, err = yaml.Marshal(proposed)
		Expect(err).NotTo(HaveOccurred())
	})

	It("finds the commands of every plugin command in the docs", func() {
		Expect(extractErr).NotTo(HaveOccurred())
		var seen []string
		for _, c := range commands {
			if c.Lang == "inline" {
				continue
			}
			text := substitute(c.Text)
			w := shellWords(text[len(envPrefix.FindString(text)):])
			if len(w) > 2 && w[0] == "kubectl" {
				seen = append(seen, w[2])
			}
		}
		for _, sub := range []string{"status", "check", "plan", "version"} {
			Expect(seen).To(ContainElement(sub), "no documented command runs kubectl podnetwork %s", sub)
		}
	})

	for _, c := range commands {
		if c.Lang == "inline" {
			// The prose names commands, often without their arguments:
			// their flags must parse, which --help checks without running
			// them.
			It("parses the flags of "+c.String(), func() {
				text := substitute(c.Text)
				Expect(leftover.FindAllString(text, -1)).To(BeEmpty(), "%s: a placeholder the suite does not know: add it to placeholders", c)
				// --help before the flags: after one that takes a value,
				// it would be the value.
				withHelp := text + " --help"
				if i := strings.Index(text, " -"); i >= 0 {
					withHelp = text[:i] + " --help" + text[i:]
				}
				r := runCommand(withHelp)
				words := shellWords(text)
				if last := words[len(words)-1]; strings.HasPrefix(last, "-") && strings.Contains(r.stderr, "flag needs an argument: "+last) {
					return // the prose names a flag, not its value
				}
				Expect(r.code).To(Equal(0), "%s, with --help: exit %d\nstdout:\n%s\nstderr:\n%s", c, r.code, r.stdout, r.stderr)
			})
			continue
		}
		It("runs "+c.String(), func() {
			want, marked := c.WantExit()
			text := substitute(c.Text)
			if e, ok := expectedExit[text]; ok {
				Expect(marked).To(BeFalse(), "%s: both a comment marker and an entry of expectedExit", c)
				want = e.code
			}
			Expect(leftover.FindAllString(text, -1)).To(BeEmpty(), "%s: a placeholder the suite does not know: add it to placeholders", c)
			r := runCommand(text)
			GinkgoWriter.Printf("$ %s\n%s%s(exit %d)\n", text, r.stdout, r.stderr, r.code)
			Expect(r.code).To(Equal(want), "%s: exit %d, the docs say %d\nstdout:\n%s\nstderr:\n%s", c, r.code, want, r.stdout, r.stderr)
			if want == 0 {
				Expect(r.stderr).NotTo(ContainSubstring("error:"), "%s", c)
				Expect(r.stdout).NotTo(BeEmpty(), "%s printed nothing", c)
				checkMachineOutput(c, shellWords(text), r.stdout)
			}
			// What a console block shows a failing command print (the
			// error, the hint) is the plugin's own; the report of a command
			// that succeeds is an illustration, of a cluster the suite need
			// not have built.
			for _, line := range c.Output {
				if want == 0 || strings.Contains(line, "...") {
					continue
				}
				Expect(r.stdout+r.stderr).To(ContainSubstring(line), "%s: the output the docs show", c)
			}
		})
	}

	It("lists the NetworkPolicies a plan leaves out, or says it may not", func() {
		r := runCommand("kubectl podnetwork plan --add b=10.245.0.0/16 -o json")
		Expect(r.code).To(Equal(0), r.stderr)
		var plan cli.PlanReport
		Expect(json.Unmarshal([]byte(r.stdout), &plan)).To(Succeed())
		Expect(plan.NetworkPolicies).To(Equal(&cli.NetworkPolicyPlan{NewRanges: []string{"b"}, Checked: 1, LeftOut: []cli.NetworkPolicyLeftOut{{
			Namespace: "default", Name: "allow-pods", Rules: []cli.NetworkPolicyRuleLeftOut{{
				Rule: "ingress rule 1", Allows: []string{"10.244.0.0/16", "10.250.0.0/27"}, LeavesOut: []string{"b (10.245.0.0/16)"}}},
		}}}))
		r = runCommand("kubectl podnetwork plan --add b=10.250.0.0/16 -o json")
		Expect(r.code).To(Equal(1), "b overlaps gpu: rejected")
		plan = cli.PlanReport{}
		Expect(json.Unmarshal([]byte(r.stdout), &plan)).To(Succeed())
		Expect(plan.Outcome).To(Equal(cli.OutcomeRejected))
		Expect(plan.NetworkPolicies).To(BeNil(), "nothing to check when the API server refuses the change")

		// A user who may not list them gets the plan, and a line saying so.
		r = runCommand("KUBECONFIG=" + devKubeconfig + " kubectl podnetwork plan --add b=10.245.0.0/16 -o json")
		Expect(r.code).To(Equal(0), r.stderr)
		plan = cli.PlanReport{}
		Expect(json.Unmarshal([]byte(r.stdout), &plan)).To(Succeed())
		Expect(plan.Outcome).To(Equal(cli.OutcomeProceeds))
		Expect(plan.NetworkPolicies.Checked).To(BeZero())
		Expect(plan.NetworkPolicies.LeftOut).To(BeEmpty())
		Expect(plan.NetworkPolicies.Unreadable).NotTo(BeNil())
		Expect(plan.NetworkPolicies.Unreadable.Resource).To(Equal(cli.ResourceNetworkPolicies))
		Expect(plan.NetworkPolicies.Unreadable.Message).To(ContainSubstring(`User "` + devUser + `" cannot list resource "networkpolicies"`))
		r = runCommand("KUBECONFIG=" + devKubeconfig + " kubectl podnetwork plan --add b=10.245.0.0/16")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(ContainSubstring("\nNetworkPolicies could not be read (networkpolicies.networking.k8s.io is forbidden: User \"" + devUser + "\" cannot list"))
		Expect(r.stdout).To(ContainSubstring("so which of them leave out b is not known; the rest of the plan stands.\n"))
	})

	It("authenticated through the exec credential plugin", func() {
		Expect(execMarker).To(BeAnExistingFile())
	})
})

// substitute replaces the placeholders of a documented command, in the
// table's order; a placeholder in capitals only as a whole word.
func substitute(s string) string {
	for _, p := range placeholders {
		if capitals.MatchString(p.placeholder) {
			s = regexp.MustCompile(`\b`+p.placeholder+`\b`).ReplaceAllLiteralString(s, p.value)
			continue
		}
		s = strings.ReplaceAll(s, p.placeholder, p.value)
	}
	return s
}

var capitals = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

type result struct {
	code           int
	stdout, stderr string
}

// runCommand runs a documented command line with sh, the plugin's binary and
// kubectl on the PATH and the suite's kubeconfig, in workDir. A --watch
// runs for watchFor and is interrupted.
func runCommand(text string) result {
	GinkgoHelper()
	words := shellWords(text)
	watch := slices.Contains(words, "--watch") || slices.Contains(words, "-w")
	var stdin io.Reader
	for i, w := range words {
		file := ""
		switch {
		case w == "<" && i+1 < len(words):
			file = words[i+1] // plan -f - < FILE
		case strings.HasPrefix(w, "<") && len(w) > 1:
			file = w[1:]
		case (w == "-f" || w == "--filename") && i+1 < len(words):
			file = words[i+1]
		case strings.HasPrefix(w, "--filename="):
			file = strings.TrimPrefix(w, "--filename=")
		case strings.HasPrefix(w, "-f") && len(w) > 2 && !strings.HasPrefix(w, "--"):
			file = strings.TrimPrefix(strings.TrimPrefix(w, "-f"), "=")
		}
		switch {
		case file == "-":
			stdin = bytes.NewReader(manifest)
		case file != "":
			path := file
			if !filepath.IsAbs(path) {
				path = filepath.Join(workDir, path)
			}
			if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
				Expect(os.MkdirAll(filepath.Dir(path), 0o755)).To(Succeed())
				Expect(os.WriteFile(path, manifest, 0o600)).To(Succeed())
			}
		}
	}
	rctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	// exec, after the variable assignments, so the interrupt of a --watch
	// reaches the plugin.
	env := envPrefix.FindString(text)
	cmd := exec.CommandContext(rctx, "/bin/sh", "-c", env+"exec "+text[len(env):])
	cmd.Dir = workDir
	cmd.Env = append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"KUBECONFIG="+kubeconfig, "HOME="+filepath.Join(workDir, "home"))
	var stdout, stderr safeBuffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &stdout, &stderr
	Expect(cmd.Start()).To(Succeed())
	if watch {
		done := make(chan struct{})
		go func() {
			select {
			case <-time.After(watchFor):
				_ = cmd.Process.Signal(syscall.SIGINT)
			case <-done:
			}
		}()
		defer close(done)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		Fail(err.Error())
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
}

// checkMachineOutput checks that -o json and -o yaml print the plugin's
// reports: one or more (a --watch) whole documents of its apiVersion.
func checkMachineOutput(c docCommand, words []string, stdout string) {
	GinkgoHelper()
	output := ""
	for i, w := range words {
		switch {
		case (w == "-o" || w == "--output") && i+1 < len(words):
			output = words[i+1]
		case strings.HasPrefix(w, "-o=") || strings.HasPrefix(w, "--output="):
			_, output, _ = strings.Cut(w, "=")
		}
	}
	var docs []map[string]any
	switch output {
	case "json":
		dec := json.NewDecoder(strings.NewReader(stdout))
		for {
			var doc map[string]any
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) {
				break
			}
			Expect(err).NotTo(HaveOccurred(), "%s: not a stream of JSON documents:\n%s", c, stdout)
			docs = append(docs, doc)
		}
	case "yaml":
		for _, d := range strings.Split(stdout, "\n---\n") {
			var doc map[string]any
			Expect(yaml.Unmarshal([]byte(d), &doc)).To(Succeed(), "%s: not YAML documents:\n%s", c, stdout)
			docs = append(docs, doc)
		}
	default:
		return
	}
	Expect(docs).NotTo(BeEmpty(), "%s", c)
	for _, d := range docs {
		Expect(d).To(HaveKeyWithValue("apiVersion", cli.GroupVersion.String()), "%s", c)
	}
}

// safeBuffer is a bytes.Buffer a process writes while the test reads it.
type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
