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
// (cmd/kubectl-podnetwork): cobra commands with kubectl's global flags
// (cli-runtime's ConfigFlags), cli-runtime's printers for -o, reading the
// cluster, the server-side dry-run, --watch and the exit codes. What it
// shows is computed by package cli.
package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/internal/adapters/registry"
	"podnetwork.io/operator/internal/cli"
	"podnetwork.io/operator/internal/scheme"
)

// Exit codes, the plugin's contract with scripts (docs/kubectl-plugin.md).
const (
	// ExitOK: done; check found no error, plan predicts the change
	// completes.
	ExitOK = 0
	// ExitProblems: findings. check found errors; plan's outcome is Stuck
	// or Rejected.
	ExitProblems = 1
	// ExitUsage: the command line is wrong: an unknown command or flag, a
	// bad flag value, an unreadable or malformed -f file.
	ExitUsage = 2
	// ExitFailed: the API server could not be used: no kubeconfig, no
	// connection, credentials refused, a permission missing (then what
	// could be read is printed, and what could not is named on standard
	// error), or another API error.
	ExitFailed = 3
)

// DefaultRequestTimeout is --request-timeout unless given: unlike kubectl
// (no timeout), the plugin gives up on a request after 30s.
const DefaultRequestTimeout = "30s"

const long = `kubectl podnetwork: the pod network of podnetwork-operator at a glance.

  status    ranges (phase, for how long, awaiting, rejections, usage), the
            headroom per nodeSelector, the consumers and the conditions.
  check     an audit that needs no operator running: overlapping podCIDRs,
            podCIDRs outside every range, nodes without podCIDRs and why,
            acknowledgements behind the current phases, the adapters'
            ConfigMaps against the ranges. Exits 1 when it finds an error.
  plan      what a change of the ranges would do, predicted with the
            operator's own code after a server-side dry-run; nothing is
            written. Exits 1 when the change would be refused or get stuck.
  version   the plugin's version.

Every command takes kubectl's global flags (--kubeconfig, --context, --as,
...), before or after its name, and -o json|yaml|jsonpath=...|go-template=...
for scripts. Exit codes: 0 fine, 1 findings, 2 usage error, 3 API or
permission error.`

// Options are what a test injects instead of the process's environment.
type Options struct {
	// Config, when set, is used instead of loading a kubeconfig.
	Config *rest.Config
	// Now returns the time; nil is time.Now.
	Now func() time.Time
	// Stdin is what `plan -f -` reads; nil is os.Stdin.
	Stdin io.Reader
	// BuildInfo is what `version` reports; nil is debug.ReadBuildInfo.
	BuildInfo func() (*debug.BuildInfo, bool)
}

// plugin is one run of the plugin: its flags, streams and what the
// commands share.
type plugin struct {
	opts           Options
	stdout, stderr io.Writer
	config         *genericclioptions.ConfigFlags
	adapters       adapterFlags
	// warningsAsErrors is --warnings-as-errors; warnings the API server's
	// warnings seen.
	warningsAsErrors bool
	warnings         *warningPrinter
}

// Run runs the plugin with args (without the program name) and returns the
// exit code.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, opts Options) int {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Stdin == nil {
		opts.Stdin = os.Stdin
	}
	if opts.BuildInfo == nil {
		opts.BuildInfo = debug.ReadBuildInfo
	}
	p := &plugin{opts: opts, stdout: stdout, stderr: stderr, warnings: &warningPrinter{w: stderr}}
	root := p.command()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetIn(opts.Stdin)
	cmd, err := root.ExecuteContextC(ctx)
	return p.exit(cmd, err)
}

// command is the command tree.
func (p *plugin) command() *cobra.Command {
	root := &cobra.Command{
		Use:         "kubectl-podnetwork",
		Annotations: map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl podnetwork"},
		Short:       "The pod network of podnetwork-operator at a glance",
		Long:        long,
		// The plugin prints its own errors, with a hint instead of the
		// usage (exit).
		SilenceErrors:              true,
		SilenceUsage:               true,
		CompletionOptions:          cobra.CompletionOptions{DisableDefaultCmd: true},
		SuggestionsMinimumDistance: 2,
		// The root takes any argument, so an unknown command reaches RunE
		// and is a usage error like any other.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				cmd.SetOut(p.stderr)
				_ = cmd.Help()
				return exitStatus(ExitUsage)
			}
			msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(s, ", "))
			}
			return usageError{errors.New(msg)}
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })

	p.config = genericclioptions.NewConfigFlags(false)
	p.config.Timeout = ptr.To(DefaultRequestTimeout)
	p.config.CacheDir = ptr.To("")
	flags := root.PersistentFlags()
	p.config.AddFlags(flags)
	flags.Lookup("cache-dir").Usage = "Accepted as kubectl does; the plugin keeps no discovery cache."
	flags.Lookup("namespace").Usage = "Accepted as kubectl does; it changes nothing: the plugin reads cluster-scoped objects, and the adapters' objects are named namespace/name by their flags."
	// kubectl's flags for klog: -v 6 shows every request.
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	// klog's settings are the process's: each run starts from klog's
	// defaults, as a new process would.
	for name, def := range map[string]string{"v": "0", "vmodule": ""} {
		f := pflag.PFlagFromGoFlag(klogFlags.Lookup(name))
		_ = f.Value.Set(def)
		f.DefValue = def
		if name == "v" {
			f.Shorthand = "v"
		}
		flags.AddFlag(f)
	}
	flags.BoolVar(&p.warningsAsErrors, "warnings-as-errors", false, "Treat warnings received from the server as errors and exit with code 3.")

	p.adapters = defaultAdapterFlags(registry.All())
	root.AddCommand(p.statusCommand(), p.checkCommand(), p.planCommand(), p.versionCommand())
	return root
}

// noArgs refuses arguments after a command.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError{fmt.Errorf("unexpected arguments: %s", strings.Join(args, " "))}
	}
	return nil
}

// exit prints what ended the command, when anything should be said, and
// returns the exit code.
func (p *plugin) exit(cmd *cobra.Command, err error) int {
	var (
		status  exitStatus
		usage   usageError
		partial *partialError
	)
	switch {
	case err == nil || errors.As(err, &status):
		code := ExitOK
		if err != nil {
			code = int(status)
		}
		if n := p.warnings.count(); p.warningsAsErrors && n > 0 {
			fmt.Fprintf(p.stderr, "error: the API server sent %s (--warnings-as-errors)\n", plural(n, "warning"))
			return ExitFailed
		}
		return code
	case errors.As(err, &usage):
		path := "kubectl podnetwork"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		fmt.Fprintf(p.stderr, "error: %v\nSee '%s --help' for usage.\n", usage.error, path)
		return ExitUsage
	case errors.As(err, &partial):
		fmt.Fprintf(p.stderr, "error: the output above leaves out what the plugin was not allowed to read:\n")
		for _, u := range partial.unreadable {
			fmt.Fprintf(p.stderr, "  %s: %s\n", u, u.Message)
		}
		fmt.Fprintln(p.stderr, permissionsHint)
		return ExitFailed
	default:
		fmt.Fprintf(p.stderr, "error: %v\n", err)
		if hint := apiHint(err); hint != "" {
			fmt.Fprintln(p.stderr, hint)
		}
		return ExitFailed
	}
}

// env is a command's connection to the cluster and its output.
type env struct {
	p       *plugin
	targets []AdapterTarget
	client  client.WithWatch
	now     func() time.Time
}

// connect loads the kubeconfig with kubectl's global flags and creates the
// client.
func (p *plugin) connect() (*env, error) {
	targets, err := p.adapters.targets()
	if err != nil {
		return nil, usageError{err}
	}
	timeout, err := clientcmd.ParseTimeout(*p.config.Timeout)
	if err != nil {
		return nil, usageError{fmt.Errorf("--request-timeout %q: %w", *p.config.Timeout, err)}
	}
	cfg := p.opts.Config
	if cfg == nil {
		if cfg, err = p.config.ToRESTConfig(); err != nil {
			return nil, fmt.Errorf("loading the kubeconfig: %w", err)
		}
	}
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = timeout
	cfg.UserAgent = "kubectl-podnetwork/" + cli.VersionFrom(readBuildInfo(p.opts.BuildInfo)).Version
	cfg.WarningHandler, cfg.WarningHandlerWithContext = nil, p.warnings
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme.Scheme()})
	if err != nil {
		return nil, fmt.Errorf("creating the client: %w", err)
	}
	return &env{p: p, targets: targets, client: c, now: p.opts.Now}, nil
}

func readBuildInfo(read func() (*debug.BuildInfo, bool)) *debug.BuildInfo {
	if info, ok := read(); ok {
		return info
	}
	return nil
}

// warningPrinter prints the API server's warnings on standard error as
// kubectl does, each once, and counts them for --warnings-as-errors.
type warningPrinter struct {
	w    io.Writer
	mu   sync.Mutex
	seen map[string]bool
}

// HandleWarningHeaderWithContext implements rest.WarningHandlerWithContext.
func (h *warningPrinter) HandleWarningHeaderWithContext(_ context.Context, code int, _ string, text string) {
	if code != 299 || text == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.seen[text] {
		return
	}
	if h.seen == nil {
		h.seen = map[string]bool{}
	}
	h.seen[text] = true
	fmt.Fprintf(h.w, "Warning: %s\n", text)
}

func (h *warningPrinter) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.seen)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
