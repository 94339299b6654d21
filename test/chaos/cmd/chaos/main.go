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

// Command chaos runs the fault-injection suite (test/chaos): the operator
// under test with the given seeds, then, if -bug-operator is set, the
// operator built with the chaosbug tag once per seeded bug (-bugs, all by
// default), each with -bug-seed and only that bug active. It fails when a
// run of the operator under test finds a violation, a gap in its history,
// does not settle or reuses too few freed blocks, and when a seeded bug is
// not caught by the invariant test/chaos.SeededBugs ties it to.
//
// Usage (from the repository root; `make chaos-short` and `make chaos`
// build the binaries and pass these):
//
//	go run ./test/chaos/cmd/chaos -config short -seeds 1 -operator bin/manager \
//	    -bug-operator bin/manager-chaosbug -bug-seed 1 -doc docs/reliability.md
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"podnetwork.io/operator/test/chaos"
	"podnetwork.io/operator/test/framework/invariants/history"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(1)
	}
}

func run() error {
	config := flag.String("config", "short", "configuration: short (CI) or long (the acceptance run)")
	seeds := flag.String("seeds", "1", "comma-separated seeds to run the operator under test with")
	operator := flag.String("operator", "bin/manager", "operator binary under test")
	bugOperator := flag.String("bug-operator", "", "operator binary built with -tags chaosbug; empty: no seeded-bug run")
	bugSeed := flag.Int64("bug-seed", 1, "seed of each seeded-bug run")
	bugs := flag.String("bugs", "all", "comma-separated seeded bugs to run with -bug-operator, or all (every one but those the short run does not trigger); known: "+bugNames())
	bugConfig := flag.String("bug-config", "short", "configuration of the seeded-bug run: it only has to show the checker fails")
	work := flag.String("work", "bin/chaos", "directory for the runs' logs")
	out := flag.String("out", "", "also write the report to this file (default: <work>/<config>.md)")
	doc := flag.String("doc", "", "replace the generated block of this Markdown file (docs/reliability.md) named after -config with the report")
	command := flag.String("command", "", "the command to name in the report (default: this command line)")
	window := flag.Duration("fault-window", 0, "override the configuration's fault window (while developing)")
	nodes := flag.Int("nodes", 0, "override the configuration's most nodes at once (while developing)")
	nodeMask := flag.Int("node-mask", 0, "override the configuration's node block size (while developing)")
	families := flag.String("families", "", "override the configuration's IP families: IPv4, IPv6 or DualStack")
	flag.Parse()
	if *command == "" {
		*command = "go run ./test/chaos/cmd/chaos " + strings.Join(os.Args[1:], " ")
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var results []*chaos.Result
	var failures []error
	for s := range strings.SplitSeq(*seeds, ",") {
		seed, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return fmt.Errorf("bad seed %q: %w", s, err)
		}
		cfg, err := chaos.ForName(*config, seed)
		if err != nil {
			return err
		}
		if *window > 0 {
			cfg.FaultWindow = *window
		}
		if *nodes > 0 {
			cfg.Nodes = *nodes
		}
		if *nodeMask > 0 {
			cfg.NodeMaskSize = int32(*nodeMask) //nolint:gosec // a prefix length
		}
		if *families != "" {
			if cfg.Families, err = chaos.ParseFamilies(*families); err != nil {
				return err
			}
		}
		label := fmt.Sprintf("operator, seed %d", seed)
		res, err := chaos.Run(ctx, cfg, chaos.Options{Binary: *operator, WorkDir: filepath.Join(*work, fmt.Sprintf("%s-%d", cfg.Name, seed)), Label: label})
		if err != nil {
			return fmt.Errorf("%s: %w (reproduce with -config %s -seeds %d)", label, err, cfg.Name, seed)
		}
		results = append(results, res)
		err = res.Problems()
		// Without reuses, recycle-delay and the rebuild's quarantine were
		// not put to the test: the run proves too little to pass.
		err = errors.Join(err, chaos.ReuseProblems(res.Reuses()))
		if err != nil {
			failures = append(failures, fmt.Errorf("%s: %w (reproduce with -config %s -seeds %d)", label, err, cfg.Name, seed))
		}
	}
	var verdicts []string
	if *bugOperator != "" {
		selected, err := selectBugs(*bugs)
		if err != nil {
			return err
		}
		for _, bug := range selected {
			cfg, err := chaos.ForName(*bugConfig, *bugSeed)
			if err != nil {
				return err
			}
			label := fmt.Sprintf("seeded bug %s, seed %d", bug.Name, *bugSeed)
			res, err := chaos.Run(ctx, cfg, chaos.Options{
				Binary: *bugOperator, Bug: &bug, Label: label,
				WorkDir: filepath.Join(*work, fmt.Sprintf("%s-%d-bug-%s", cfg.Name, *bugSeed, bug.Name)),
			})
			if err != nil {
				return fmt.Errorf("%s: %w", label, err)
			}
			results = append(results, res)
			// Only the bug's own invariant shows it caught: another one
			// firing (a stale write of a woken leader, say) is no proof the
			// checker sees this bug.
			v, _ := res.Verdict()
			verdicts = append(verdicts, fmt.Sprintf("chaos: %s: %s", label, v))
			if err := v.Err(); err != nil {
				failures = append(failures, fmt.Errorf("%s: %w (reproduce with -config %s -bugs %s -bug-seed %d)", label, err, cfg.Name, bug.Name, *bugSeed))
			}
		}
	}

	text := chaos.Markdown(results, *command, machine())
	fmt.Print(text)
	full := text
	for _, r := range results {
		full += "\n### " + r.Label + "\n\n" + history.Table(r.Report)
	}
	if *out == "" {
		*out = filepath.Join(*work, *config+".md")
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(*out), err)
	}
	if err := os.WriteFile(*out, []byte(full), 0o644); err != nil { //nolint:gosec // a report
		return fmt.Errorf("writing %s: %w", *out, err)
	}
	if *doc != "" {
		if err := chaos.ReplaceGenerated(*doc, "chaos "+*config, text); err != nil {
			return err
		}
	}
	for _, r := range results {
		for _, d := range r.Details() {
			fmt.Fprintf(os.Stderr, "chaos: %s: %s\n", r.Label, d)
		}
	}
	for _, r := range results {
		if r.Bug == nil {
			reuses, across := r.Reuses()
			fmt.Fprintf(os.Stderr, "chaos: %s: %d freed blocks reused, %d of them across a fail-over\n", r.Label, reuses, across)
		}
	}
	for _, v := range verdicts {
		fmt.Fprintln(os.Stderr, v)
	}
	return errors.Join(failures...)
}

// selectBugs returns the seeded bugs named by the -bugs flag.
func selectBugs(names string) ([]chaos.SeededBug, error) {
	if strings.TrimSpace(names) == "all" {
		return chaos.DefaultSeededBugs(), nil
	}
	var out []chaos.SeededBug
	for name := range strings.SplitSeq(names, ",") {
		bug, err := chaos.SeededBugNamed(strings.TrimSpace(name))
		if err != nil {
			return nil, fmt.Errorf("-bugs: %w", err)
		}
		out = append(out, bug)
	}
	return out, nil
}

func bugNames() string {
	names := make([]string, 0, len(chaos.SeededBugs))
	for _, b := range chaos.SeededBugs {
		names = append(names, b.Name)
	}
	return strings.Join(names, ", ")
}

// machine describes the machine the report was measured on.
func machine() string {
	model := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(data), "\n") {
			if name, ok := strings.CutPrefix(line, "model name"); ok {
				model = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
				break
			}
		}
	}
	return fmt.Sprintf("%d cores (%s), %s/%s", runtime.NumCPU(), model, runtime.GOOS, runtime.GOARCH)
}
