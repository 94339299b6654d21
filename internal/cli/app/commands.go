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
	"time"

	"github.com/spf13/cobra"

	"podnetwork.io/operator/internal/cli"
	"podnetwork.io/operator/internal/lifecycle"
	"podnetwork.io/operator/internal/nodeipam"
)

func (p *plugin) statusCommand() *cobra.Command {
	var watch bool
	var refresh time.Duration
	var operatorNamespace string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the ranges, the headroom per nodeSelector, the consumers and the conditions",
		Long: `Show the PodNetwork on one screen: every range with its phase, for how long,
its allocated/free/quarantined blocks, its nodeSelector, whom it awaits and who
rejected it; the headroom of the Active ranges per nodeSelector; the consumers;
the conditions; the operator's Deployment (ready/desired replicas) and the
replica that holds its leader-election Lease. --watch prints it again on every
change.`,
		Args: noArgs,
	}
	out := addOutputFlags(cmd)
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "Print the status again whenever the PodNetwork or a consumer changes (and every --refresh); with -o json or yaml, one document each time.")
	cmd.Flags().DurationVar(&refresh, "refresh", 30*time.Second, "With --watch, print the status again at least this often.")
	addOperatorNamespaceFlag(cmd, &operatorNamespace)
	p.adapters.bind(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		printer, err := out.printer()
		if err != nil {
			return err
		}
		e, err := p.connect()
		if err != nil {
			return err
		}
		show := func(ctx context.Context) ([]cli.Unreadable, error) {
			c, err := e.readWithOperator(ctx, operatorNamespace)
			if err != nil {
				return nil, err
			}
			s := cli.BuildStatus(c, e.now())
			return c.Unreadable, printer.PrintObj(&s, p.stdout)
		}
		var unreadable []cli.Unreadable
		if watch {
			unreadable, err = e.watchStatus(cmd.Context(), refresh, out.human(), show)
		} else {
			unreadable, err = show(cmd.Context())
		}
		if err != nil {
			return err
		}
		if len(unreadable) > 0 {
			return &partialError{unreadable}
		}
		return nil
	}
	return cmd
}

func (p *plugin) checkCommand() *cobra.Command {
	var stall, grace time.Duration
	var operatorNamespace string
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Audit the pod network with the operator's rules; exit 1 on an error",
		Long: `Audit the cluster with the operator's own rules; no operator needs to run:
overlapping podCIDRs, podCIDRs outside every tracked range, nodes without
podCIDRs and why, acknowledgements behind the current phases, the adapters'
ConfigMaps against the ranges, and the operator itself: its Deployment has
ready replicas and a replica holds the leader-election Lease. Exits 1 when it
finds an error.`,
		Args: noArgs,
	}
	out := addOutputFlags(cmd)
	cmd.Flags().DurationVar(&stall, "stall-after", lifecycle.DefaultStallAfter, "How long a required consumer may lag on a phase before that is an error (the operator's --stall-after).")
	cmd.Flags().DurationVar(&grace, "new-node-grace", time.Minute, "How long a node without podCIDRs counts as just joined (a warning).")
	addOperatorNamespaceFlag(cmd, &operatorNamespace)
	p.adapters.bind(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		printer, err := out.printer()
		if err != nil {
			return err
		}
		e, err := p.connect()
		if err != nil {
			return err
		}
		c, err := e.readWithOperator(cmd.Context(), operatorNamespace)
		if err != nil {
			return err
		}
		r := cli.Check(c, cli.CheckOptions{Now: e.now(), StallAfter: stall, NewNodeGrace: grace})
		if err := printer.PrintObj(&r, p.stdout); err != nil {
			return err
		}
		switch {
		case len(c.Unreadable) > 0:
			return &partialError{c.Unreadable}
		case r.Errors > 0:
			return exitStatus(ExitProblems)
		}
		return nil
	}
	return cmd
}

func (p *plugin) versionCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the plugin's version",
		Long: `Print the plugin's version: the module version it was built from, the git
commit when the build recorded one, the Go version and the platform. It
needs no cluster.`,
		Args: noArgs,
	}
	out := addOutputFlags(cmd)
	cmd.RunE = func(*cobra.Command, []string) error {
		printer, err := out.printer()
		if err != nil {
			return err
		}
		v := cli.VersionFrom(readBuildInfo(p.opts.BuildInfo))
		return printer.PrintObj(&v, p.stdout)
	}
	return cmd
}

func (e *env) read(ctx context.Context) (*cli.Cluster, error) {
	return Read(ctx, e.client, nodeipam.ConsumerName, e.targets)
}

// readWithOperator reads what read does and the operator's Deployment and
// Lease (ReadOperator).
func (e *env) readWithOperator(ctx context.Context, operatorNamespace string) (*cli.Cluster, error) {
	c, err := e.read(ctx)
	if err != nil {
		return nil, err
	}
	if err := ReadOperator(ctx, e.client, c, operatorNamespace); err != nil {
		return nil, err
	}
	return c, nil
}

// addOperatorNamespaceFlag adds --operator-namespace.
func addOperatorNamespaceFlag(cmd *cobra.Command, ns *string) {
	cmd.Flags().StringVar(ns, "operator-namespace", "", "The namespace of the operator's Deployment (labelled "+cli.OperatorLabel+"="+cli.OperatorName+
		") and its leader-election Lease; by default every namespace is searched.")
}
