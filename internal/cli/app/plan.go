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
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cli"
	"podnetwork.io/operator/internal/lifecycle"
)

// PlanAttempts bounds how often plan dry-runs the change: when the
// PodNetwork changes between plan's read and its dry-run (the operator
// writes its status all the time), the dry-run, which carries the
// resourceVersion plan read, conflicts, and plan reads the PodNetwork again
// and plans again, after a short backoff.
const PlanAttempts = 5

// planBackoff spaces the attempts: 50ms, 100ms, 200ms, 400ms, with jitter.
var planBackoff = wait.Backoff{Duration: 50 * time.Millisecond, Factor: 2, Jitter: 0.5, Steps: PlanAttempts}

func (p *plugin) planCommand() *cobra.Command {
	var file string
	var adds, removes []string
	cmd := &cobra.Command{
		Use:   "plan (-f FILE | --add NAME=CIDR[,nodeMaskSize=N] ... | --remove NAME ...)",
		Short: "Predict what a change of the ranges would do; exit 1 when it would be refused or get stuck",
		Long: `Predict what a change of the ranges would do. The new spec is first sent to the
API server as a server-side dry-run (the CRD's schema and CEL rules, admission
webhooks and policies judge it); then the operator's lifecycle runs on it and
every consumer answers, round after round, as its own code decides. Nothing
is written.

Outcome Proceeds exits 0; Rejected (the API server refuses the change) and
Stuck (a range would stay invalid, rejected, or waiting for a required
consumer that will not answer) exit 1.`,
		Example: `  kubectl podnetwork plan --add b=10.245.0.0/16 --remove a
  kubectl podnetwork plan -f new-podnetwork.yaml -o json`,
		Args: noArgs,
	}
	out := addOutputFlags(cmd)
	cmd.Flags().StringVarP(&file, "filename", "f", "", "A PodNetwork manifest with the new spec (\"-\" reads standard input).")
	cmd.Flags().StringArrayVar(&adds, "add", nil, "Add a range NAME=CIDR, optionally NAME=CIDR,nodeMaskSize=N (repeatable).")
	cmd.Flags().StringArrayVar(&removes, "remove", nil, "Remove the range NAME (repeatable).")
	p.adapters.bind(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if (file != "") == (len(adds)+len(removes) > 0) {
			return usageError{errors.New("plan needs either -f FILE or --add/--remove")}
		}
		printer, err := out.printer()
		if err != nil {
			return err
		}
		// The file is read before any request: a bad one is a mistake on
		// the command line.
		var fileSpec *v1alpha1.PodNetworkSpec
		if file != "" {
			spec, err := readManifest(file, p.opts.Stdin)
			if err != nil {
				return usageError{err}
			}
			fileSpec = &spec
		}
		e, err := p.connect()
		if err != nil {
			return err
		}
		c, err := e.read(cmd.Context())
		if err != nil {
			return err
		}
		if len(c.Unreadable) > 0 {
			// A prediction without the nodes (their blocks keep ranges
			// Draining), the consumers or the adapters' configuration would
			// be wrong: there is none.
			return fmt.Errorf("plan predicts from everything the plugin reads, and it may not read %s: %s\n%s",
				(&partialError{c.Unreadable}).what(), c.Unreadable[0].Message, permissionsHint)
		}
		proposed := func(current *v1alpha1.PodNetwork) (v1alpha1.PodNetworkSpec, error) {
			if fileSpec != nil {
				return *fileSpec, nil
			}
			return proposedSpecIn(c, current, adds, removes)
		}
		r, err := PlanChange(cmd.Context(), e.client, c, proposed, e.now)
		if err != nil {
			return err
		}
		// The spec PlanChange planned: proposed again, on what it read last.
		if spec, err := proposed(c.PodNetwork); err == nil {
			if err := AddDrainSchedule(cmd.Context(), e.client, c, &r, spec); err != nil {
				return err
			}
		}
		if err := AddNetworkPolicies(cmd.Context(), e.client, &r); err != nil {
			return err
		}
		if err := printer.PrintObj(&r, p.stdout); err != nil {
			return err
		}
		if r.Outcome != cli.OutcomeProceeds {
			return exitStatus(ExitProblems)
		}
		return nil
	}
	return cmd
}

// PlanChange dry-runs the spec proposed for the PodNetwork plan read and
// predicts what it does (cli.Plan), or reports the API server's refusal
// (cli.Rejected). The dry-run carries the resourceVersion of c.PodNetwork,
// so it judges the change against exactly the state plan predicts from;
// when the PodNetwork moved on meanwhile (a conflict, or it was created or
// deleted), PlanChange reads it again into c, proposes again and retries,
// PlanAttempts times at most. A usage error of proposed (--remove of a
// range that is not there) ends it.
func PlanChange(ctx context.Context, cl client.Client, c *cli.Cluster, proposed func(*v1alpha1.PodNetwork) (v1alpha1.PodNetworkSpec, error), now func() time.Time) (cli.PlanReport, error) {
	backoff := planBackoff
	for attempt := 1; ; attempt++ {
		spec, err := proposed(c.PodNetwork)
		if err != nil {
			return cli.PlanReport{}, usageError{err}
		}
		err = DryRun(ctx, cl, c.PodNetwork, spec)
		if err == nil {
			return cli.Plan(c, spec.Ranges, now()), nil
		}
		if r := rejection(err); r != nil {
			if r.By == cli.RejectedByValidation {
				r.Conflicts = lifecycle.SpecConflicts(spec.Ranges)
			}
			return cli.Rejected(*r), nil
		}
		if !movedOn(c.PodNetwork, err) {
			return cli.PlanReport{}, fmt.Errorf("dry-run of the change: %w", err)
		}
		if attempt == PlanAttempts {
			return cli.PlanReport{}, fmt.Errorf("the PodNetwork changed during each of %d dry-runs of the change: %w", PlanAttempts, err)
		}
		select {
		case <-ctx.Done():
			return cli.PlanReport{}, ctx.Err()
		case <-time.After(backoff.Step()):
		}
		pn := &v1alpha1.PodNetwork{}
		switch err := cl.Get(ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, pn); {
		case err == nil:
			c.PodNetwork = pn
		case apierrors.IsNotFound(err):
			c.PodNetwork = nil
		default:
			return cli.PlanReport{}, fmt.Errorf("reading PodNetwork %s again: %w", v1alpha1.PodNetworkName, err)
		}
	}
}

// movedOn reports whether the dry-run failed because the PodNetwork is no
// longer what plan read: updated (a conflict), created, or deleted.
func movedOn(read *v1alpha1.PodNetwork, err error) bool {
	if read == nil {
		return apierrors.IsAlreadyExists(err)
	}
	return apierrors.IsConflict(err) || apierrors.IsNotFound(err)
}

// DryRun sends the change of PodNetwork "default" to spec to the API server
// as a server-side dry-run, so the CRD's schema and CEL rules and every
// admission webhook and validating admission policy judge it without
// anything being written: an update of current, with its resourceVersion,
// or a create when there is none. It returns the API server's error; see
// rejection for what counts as a refusal of the change.
func DryRun(ctx context.Context, c client.Client, current *v1alpha1.PodNetwork, spec v1alpha1.PodNetworkSpec) error {
	if current == nil {
		pn := &v1alpha1.PodNetwork{Spec: spec}
		pn.Name = v1alpha1.PodNetworkName
		return c.Create(ctx, pn, client.DryRunAll)
	}
	pn := current.DeepCopy()
	pn.Spec = spec
	return c.Update(ctx, pn, client.DryRunAll)
}

// readManifest reads the spec of the PodNetwork manifest in file ("-" is
// in).
func readManifest(file string, in io.Reader) (v1alpha1.PodNetworkSpec, error) {
	var b []byte
	var err error
	if file == "-" {
		b, err = io.ReadAll(in)
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

// proposedSpec is the current spec with ranges added and removed.
func proposedSpec(current *v1alpha1.PodNetwork, adds, removes []string) (v1alpha1.PodNetworkSpec, error) {
	return proposedSpecIn(nil, current, adds, removes)
}

// proposedSpecIn is proposedSpec in the cluster c (nil for none): --remove
// of a range the autoscaler added says which pool owns it and how to
// remove it.
func proposedSpecIn(c *cli.Cluster, current *v1alpha1.PodNetwork, adds, removes []string) (v1alpha1.PodNetworkSpec, error) {
	var spec v1alpha1.PodNetworkSpec
	if current != nil {
		spec = *current.Spec.DeepCopy()
	}
	for _, name := range removes {
		i := indexOf(spec.Ranges, name)
		if i < 0 {
			if c != nil {
				if pool, ok := c.AutoscaledOwner(name); ok {
					return spec, fmt.Errorf("--remove %s: %s", name, cli.RemoveAutoscaled(name, pool))
				}
			}
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
