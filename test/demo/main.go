// Command demo runs podnetwork-operator's story on an embedded control plane
// (etcd and kube-apiserver built from their Go modules) and prints it for a
// person. `make demo` runs it; `make demo DEMO_FLAGS=--keep` leaves the
// control plane running and prints the KUBECONFIG to explore it with kubectl.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"podnetwork.io/operator/test/cluster"
)

func main() {
	keep := flag.Bool("keep", false, "Keep the control plane running after the story and print how to reach it; stop it with Ctrl-C.")
	flag.Parse()
	if err := run(*keep); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(keep bool) error {
	root, err := cluster.RepoRoot()
	if err != nil {
		return err
	}
	say("starting etcd and kube-apiserver %s (built from Go modules, see hack/control-plane.sh)", cluster.K8sVersion)
	c, err := cluster.Start(cluster.Options{
		CRDDirectoryPaths: []string{filepath.Join(root, "config", "crd", "bases")},
	})
	if err != nil {
		return err
	}
	defer func() {
		say("stopping the control plane")
		if err := c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "demo:", err)
		}
	}()
	stopSignals := c.StopOnSignal()
	defer stopSignals()
	say("control plane up at %s with the PodNetwork and PodNetworkConsumer CRDs installed", c.Config.Host)

	if err := story(c); err != nil {
		return err
	}
	if !keep {
		return nil
	}
	stopSignals()
	say("the control plane keeps running; explore it with:")
	fmt.Printf("\n  export KUBECONFIG=%s\n  kubectl get podnetwork default -o yaml\n  kubectl get podnetworkconsumers\n  kubectl get nodes -o custom-columns=NAME:.metadata.name,PODCIDRS:.spec.podCIDRs\n\n", c.KubeconfigPath)
	if _, err := os.Stat(filepath.Join(root, "bin", "k8s", cluster.K8sVersion, "kubectl")); err == nil {
		fmt.Printf("  (kubectl is at %s)\n\n", filepath.Join(root, "bin", "k8s", cluster.K8sVersion, "kubectl"))
	}
	say("press Ctrl-C to stop it")
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	<-ch
	return nil
}
