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

// Package app is the command line of the kubectl plugin
// (cmd/kubectl-podnetwork): flags, kubeconfig loading, reading the cluster,
// the server-side dry-run and --watch. What it shows is computed by package
// cli.
package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/registry"
	"podnetwork.io/operator/internal/cli"
	"podnetwork.io/operator/internal/lifecycle"
	"podnetwork.io/operator/internal/nodeipam"
	"podnetwork.io/operator/internal/scheme"
)

// Exit codes.
const (
	// ExitOK: done, and check found no error.
	ExitOK = 0
	// ExitProblems: check found errors.
	ExitProblems = 1
	// ExitUsage: the command line is wrong.
	ExitUsage = 2
	// ExitFailed: the command could not do its work (no cluster, no
	// permission, a bad file).
	ExitFailed = 3
)

const usage = `kubectl podnetwork: the pod network of podnetwork-operator at a glance.

Usage:
  kubectl podnetwork status [-o text|json|yaml] [--watch]
  kubectl podnetwork check  [-o text|json|yaml] [--stall-after 10m]
  kubectl podnetwork plan   (-f new-podnetwork.yaml | --add NAME=CIDR[,nodeMaskSize=N] ... | --remove NAME ...) [-o text|json|yaml]

status  ranges (phase, for how long, awaiting, rejections, usage), the headroom
        per nodeSelector, the consumers and the conditions.
check   an audit that needs no operator running: overlapping podCIDRs, podCIDRs
        outside every range, nodes without podCIDRs and why, acknowledgements
        behind the current phases, kube-proxy's and flannel's ConfigMaps against
        the ranges. Exits 1 when it finds an error.
plan    what a change of the ranges would do, predicted with the operator's own
        code after a server-side dry-run; nothing is written.

Flags of every command (kubectl's KUBECONFIG is honoured):
`

// Options are what a test injects instead of the kubeconfig.
type Options struct {
	// Config, when set, is used instead of loading a kubeconfig.
	Config *rest.Config
	// Now returns the time; nil is time.Now.
	Now func() time.Time
}

// globals are the flags of every command.
type globals struct {
	kubeconfig, context string
	timeout             time.Duration
	output              string
	adapters            adapterFlags
}

// Run runs the plugin with args (without the program name) and returns the
// exit code.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, opts Options) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		newFlagSet("", &globals{}, stderr).PrintDefaults()
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	cmd, rest := args[0], args[1:]
	g := &globals{}
	fs := newFlagSet(cmd, g, stderr)
	var run func(context.Context, *env) (int, error)
	switch cmd {
	case "status":
		watch := fs.Bool("watch", false, "Print the status again whenever the PodNetwork or a consumer changes (and every --refresh).")
		fs.BoolVar(watch, "w", false, "Short for --watch.")
		refresh := fs.Duration("refresh", 30*time.Second, "With --watch, print the status again at least this often.")
		run = func(ctx context.Context, e *env) (int, error) { return e.status(ctx, *watch, *refresh) }
	case "check":
		stall := fs.Duration("stall-after", lifecycle.DefaultStallAfter, "How long a required consumer may lag on a phase before that is an error (the operator's --stall-after).")
		grace := fs.Duration("new-node-grace", time.Minute, "How long a node without podCIDRs counts as just joined (a warning).")
		run = func(ctx context.Context, e *env) (int, error) { return e.check(ctx, *stall, *grace) }
	case "plan":
		file := fs.String("f", "", "A PodNetwork manifest with the new spec (\"-\" reads standard input).")
		fs.StringVar(file, "filename", "", "Same as -f.")
		var adds, removes stringList
		fs.Var(&adds, "add", "Add a range NAME=CIDR, optionally NAME=CIDR,nodeMaskSize=N (repeatable).")
		fs.Var(&removes, "remove", "Remove the range NAME (repeatable).")
		run = func(ctx context.Context, e *env) (int, error) { return e.plan(ctx, *file, adds, removes) }
	default:
		fmt.Fprintf(stderr, "unknown command %q\n\n%s", cmd, usage)
		return ExitUsage
	}
	if err := fs.Parse(rest); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "unexpected arguments: %s\n", strings.Join(fs.Args(), " "))
		return ExitUsage
	}
	e, err := newEnv(g, stdout, opts)
	if err == nil {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var code int
		if code, err = run(ctx, e); err == nil {
			return code
		}
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return ExitUsage
	}
	fmt.Fprintf(stderr, "error: %v\n", err)
	return ExitFailed
}

// usageError is a mistake on the command line found after parsing.
type usageError struct{ error }

func newFlagSet(name string, g *globals, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("kubectl podnetwork "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&g.kubeconfig, "kubeconfig", "", "Path to the kubeconfig file (default: KUBECONFIG, then ~/.kube/config).")
	fs.StringVar(&g.context, "context", "", "The kubeconfig context to use.")
	fs.DurationVar(&g.timeout, "request-timeout", 30*time.Second, "How long one request to the API server may take.")
	fs.StringVar(&g.output, "o", cli.FormatText, "Output format: text, json or yaml.")
	fs.StringVar(&g.output, "output", cli.FormatText, "Same as -o.")
	g.adapters = defaultAdapterFlags(registry.All())
	g.adapters.bind(fs)
	return fs
}

// env is a command's connection to the cluster and its output.
type env struct {
	g       *globals
	targets []AdapterTarget
	out     io.Writer
	client  client.WithWatch
	now     func() time.Time
}

func newEnv(g *globals, out io.Writer, opts Options) (*env, error) {
	if g.output != cli.FormatText && g.output != cli.FormatJSON && g.output != cli.FormatYAML {
		return nil, usageError{fmt.Errorf("unknown output format %q: use text, json or yaml", g.output)}
	}
	targets, err := g.adapters.targets()
	if err != nil {
		return nil, usageError{err}
	}
	cfg := opts.Config
	if cfg == nil {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		rules.ExplicitPath = g.kubeconfig
		overrides := &clientcmd.ConfigOverrides{CurrentContext: g.context}
		if cfg, err = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig(); err != nil {
			return nil, fmt.Errorf("loading the kubeconfig: %w", err)
		}
	}
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = g.timeout
	cfg.UserAgent = "kubectl-podnetwork"
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme.Scheme()})
	if err != nil {
		return nil, fmt.Errorf("creating the client: %w", err)
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &env{g: g, targets: targets, out: out, client: c, now: now}, nil
}

func (e *env) read(ctx context.Context) (*cli.Cluster, error) {
	return Read(ctx, e.client, nodeipam.ConsumerName, e.targets)
}

func (e *env) status(ctx context.Context, watch bool, refresh time.Duration) (int, error) {
	show := func() error {
		c, err := e.read(ctx)
		if err != nil {
			return err
		}
		s := cli.BuildStatus(c, e.now())
		return cli.Write(e.out, e.g.output, s, func(w io.Writer) error { return cli.WriteStatusText(w, &s) })
	}
	if !watch {
		return ExitOK, show()
	}
	return ExitOK, e.watchStatus(ctx, refresh, show)
}

func (e *env) check(ctx context.Context, stallAfter, grace time.Duration) (int, error) {
	c, err := e.read(ctx)
	if err != nil {
		return ExitFailed, err
	}
	r := cli.Check(c, cli.CheckOptions{Now: e.now(), StallAfter: stallAfter, NewNodeGrace: grace})
	if err := cli.Write(e.out, e.g.output, r, func(w io.Writer) error { return cli.WriteCheckText(w, &r) }); err != nil {
		return ExitFailed, err
	}
	if r.Errors > 0 {
		return ExitProblems, nil
	}
	return ExitOK, nil
}

func (e *env) plan(ctx context.Context, file string, adds, removes []string) (int, error) {
	if (file != "") == (len(adds)+len(removes) > 0) {
		return ExitUsage, usageError{errors.New("plan needs either -f FILE or --add/--remove")}
	}
	c, err := e.read(ctx)
	if err != nil {
		return ExitFailed, err
	}
	spec, err := proposedSpec(c, file, adds, removes)
	if err != nil {
		return ExitUsage, usageError{err}
	}
	refused, err := DryRun(ctx, e.client, c.PodNetwork, spec)
	if err != nil {
		return ExitFailed, err
	}
	var p cli.PlanResult
	if len(refused) > 0 {
		p = cli.PlanResult{Refused: refused, Changes: []string{}, Ranges: []cli.RangePlan{}, Consumers: []cli.ConsumerPlan{}, Adapters: []cli.AdapterPlan{}}
	} else {
		p = cli.Plan(c, spec.Ranges, e.now())
	}
	if err := cli.Write(e.out, e.g.output, p, func(w io.Writer) error { return cli.WritePlanText(w, &p) }); err != nil {
		return ExitFailed, err
	}
	if len(refused) > 0 {
		return ExitProblems, nil
	}
	return ExitOK, nil
}

// proposedSpec is the spec plan judges: the file's, or the current one
// with ranges added and removed.
func proposedSpec(c *cli.Cluster, file string, adds, removes []string) (v1alpha1.PodNetworkSpec, error) {
	if file != "" {
		var b []byte
		var err error
		if file == "-" {
			b, err = io.ReadAll(os.Stdin)
		} else {
			b, err = os.ReadFile(file)
		}
		if err != nil {
			return v1alpha1.PodNetworkSpec{}, fmt.Errorf("reading %s: %w", file, err)
		}
		var pn v1alpha1.PodNetwork
		if err := yaml.UnmarshalStrict(b, &pn); err != nil {
			return v1alpha1.PodNetworkSpec{}, fmt.Errorf("%s is not a PodNetwork: %w", file, err)
		}
		if pn.Kind != "" && pn.Kind != "PodNetwork" {
			return v1alpha1.PodNetworkSpec{}, fmt.Errorf("%s holds a %s, not a PodNetwork", file, pn.Kind)
		}
		return pn.Spec, nil
	}
	var spec v1alpha1.PodNetworkSpec
	if c.PodNetwork != nil {
		spec = *c.PodNetwork.Spec.DeepCopy()
	}
	for _, name := range removes {
		i := indexOf(spec.Ranges, name)
		if i < 0 {
			return spec, fmt.Errorf("--remove %s: there is no range %q", name, name)
		}
		spec.Ranges = append(spec.Ranges[:i], spec.Ranges[i+1:]...)
	}
	for _, a := range adds {
		r, err := parseAdd(a)
		if err != nil {
			return spec, err
		}
		if indexOf(spec.Ranges, r.Name) >= 0 {
			return spec, fmt.Errorf("--add %s: there is a range %q already", a, r.Name)
		}
		spec.Ranges = append(spec.Ranges, r)
	}
	return spec, nil
}

func indexOf(rs []v1alpha1.PodCIDRRange, name string) int {
	for i := range rs {
		if rs[i].Name == name {
			return i
		}
	}
	return -1
}

// parseAdd parses NAME=CIDR[,nodeMaskSize=N].
func parseAdd(s string) (v1alpha1.PodCIDRRange, error) {
	name, rest, ok := strings.Cut(s, "=")
	if !ok || name == "" || rest == "" {
		return v1alpha1.PodCIDRRange{}, fmt.Errorf("--add %s: want NAME=CIDR or NAME=CIDR,nodeMaskSize=N", s)
	}
	cidrText, opt, hasOpt := strings.Cut(rest, ",")
	r := v1alpha1.PodCIDRRange{Name: name, CIDR: cidrText}
	if hasOpt {
		key, value, ok := strings.Cut(opt, "=")
		n, err := strconv.ParseInt(value, 10, 32)
		if !ok || key != "nodeMaskSize" || err != nil {
			return r, fmt.Errorf("--add %s: want NAME=CIDR,nodeMaskSize=N", s)
		}
		r.NodeMaskSize = int32(n)
	}
	return r, nil
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// adapterFlags say where the operator's adapters find their components,
// one entry per descriptor of the registry; the defaults are the
// operator's.
type adapterFlags struct {
	adapters         []adapterFlag
	minIPv4, minIPv6 int
}

// adapterFlag is one adapter's --<name>-configmap, --<name>-configmap-key
// and --<name>-daemonset.
type adapterFlag struct {
	desc                      adapters.Descriptor
	configMap, key, daemonSet string
}

// DefaultTargets are where the operator's adapters find their components
// by default.
func DefaultTargets() []AdapterTarget {
	f := defaultAdapterFlags(registry.All())
	targets, err := f.targets()
	if err != nil {
		panic(err) // the operator's defaults are namespace/name
	}
	return targets
}

func defaultAdapterFlags(descs []adapters.Descriptor) adapterFlags {
	f := adapterFlags{minIPv4: adapters.DefaultLimits.IPv4, minIPv6: adapters.DefaultLimits.IPv6}
	for _, d := range descs {
		f.adapters = append(f.adapters, adapterFlag{desc: d,
			configMap: d.DefaultConfigMap.NamespacedName.String(), key: d.DefaultConfigMap.Key, daemonSet: d.DefaultDaemonSet.String()})
	}
	return f
}

func (a *adapterFlags) bind(fs *flag.FlagSet) {
	for i := range a.adapters {
		f := &a.adapters[i]
		fs.StringVar(&f.configMap, f.desc.ConfigMapFlag(), f.configMap, f.desc.KubectlHelp.ConfigMap)
		fs.StringVar(&f.key, f.desc.ConfigMapKeyFlag(), f.key, f.desc.KubectlHelp.ConfigMapKey)
		fs.StringVar(&f.daemonSet, f.desc.DaemonSetFlag(), f.daemonSet, f.desc.KubectlHelp.DaemonSet)
	}
	fs.IntVar(&a.minIPv4, "adapter-min-covering-prefix-ipv4", a.minIPv4, "The operator's --adapter-min-covering-prefix-ipv4.")
	fs.IntVar(&a.minIPv6, "adapter-min-covering-prefix-ipv6", a.minIPv6, "The operator's --adapter-min-covering-prefix-ipv6.")
}

func (a *adapterFlags) targets() ([]AdapterTarget, error) {
	limits := adapters.DefaultLimits
	limits.IPv4, limits.IPv6 = a.minIPv4, a.minIPv6
	var errs []error
	key := func(flagName, s string) client.ObjectKey {
		ns, name, ok := strings.Cut(s, "/")
		if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
			errs = append(errs, fmt.Errorf("--%s %q is not namespace/name", flagName, s))
		}
		return client.ObjectKey{Namespace: ns, Name: name}
	}
	out := make([]AdapterTarget, 0, len(a.adapters))
	for _, f := range a.adapters {
		out = append(out, AdapterTarget{Adapter: f.desc,
			ConfigMap: key(f.desc.ConfigMapFlag(), f.configMap), ConfigMapKey: f.key,
			DaemonSet: key(f.desc.DaemonSetFlag(), f.daemonSet), Limits: limits})
	}
	return out, errors.Join(errs...)
}
