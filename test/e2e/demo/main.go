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

// Command demo runs podnetwork-operator's story on an embedded control plane
// and prints it for a person: etcd and kube-apiserver built from their Go
// modules, the Helm chart installed into it, the operator running out of
// cluster as the chart's ServiceAccount (so the chart's RBAC is what is
// exercised) and a reference plugin acknowledging as its own ServiceAccount.
//
// `make demo` runs it; `make demo DEMO_FLAGS=--keep` leaves the control plane
// running afterwards and prints the KUBECONFIG to explore it with kubectl.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/cluster"
)

func main() {
	keep := flag.Bool("keep", false, "Keep the control plane running after the story and print how to reach it; stop it with Ctrl-C.")
	nodes := flag.Int("nodes", 20, "Nodes that join in the first step.")
	flag.Parse()
	if err := run(*keep, *nodes); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(keep bool, nodes int) error {
	root, err := cluster.RepoRoot()
	if err != nil {
		return err
	}
	say("starting etcd and kube-apiserver %s (built from Go modules by hack/control-plane.sh)", cluster.K8sVersion)
	cp, err := framework.StartControlPlane(framework.ControlPlaneOptions{WithoutCRDs: true})
	if err != nil {
		return err
	}
	c := cp.Cluster
	defer func() {
		say("stopping the control plane and everything the demo started")
		if err := c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "demo:", err)
		}
	}()
	stopSignals := c.StopOnSignal()
	defer stopSignals()
	say("control plane up at %s; logs and kubeconfig in %s", c.Config.Host, c.WorkDir)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, err := newDemo(ctx, root, cp, nodes)
	if err != nil {
		return err
	}
	defer d.stop()
	if err := d.story(ctx); err != nil {
		return fmt.Errorf("%w (operator log: %s)", err, d.operatorLog)
	}
	if !keep {
		return nil
	}
	stopSignals()
	say("the control plane and the operator keep running; explore them with:")
	kubectl := filepath.Join(root, "bin", "k8s", cluster.K8sVersion, "kubectl")
	if _, err := os.Stat(kubectl); err != nil {
		kubectl = "kubectl"
	}
	fmt.Printf("\n  export KUBECONFIG=%s\n  %s get podnetwork default -o yaml\n  %s get podnetworkconsumers\n  %s get nodes -o custom-columns=NAME:.metadata.name,PODCIDRS:.spec.podCIDRs\n\n",
		c.KubeconfigPath, kubectl, kubectl, kubectl)
	say("press Ctrl-C to stop")
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	<-ch
	return nil
}
