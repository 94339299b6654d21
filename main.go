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

// Command podnetwork-operator runs the controllers that make the pod network
// scalable at runtime: the PodNetwork lifecycle, the built-in multi-range
// NodeIPAM and the kube-proxy and flannel adapters.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/debug"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/internal/lazylog"
	"podnetwork.io/operator/internal/memlimit"
)

func main() {
	opts := controllers.DefaultOptions()
	fs := flag.CommandLine
	opts.BindFlags(fs)
	zapOpts := zap.Options{Development: false}
	zapOpts.BindFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s [flags]\n\nRuns the podnetwork-operator manager.\n\nFlags:\n", os.Args[0])
		fs.PrintDefaults()
	}
	flag.Parse()

	// zap through zapr: controller-runtime's zap package builds a zap logger
	// and wraps it as a logr.Logger with zapr. lazylog defers the values of
	// the logger controller-runtime builds for every reconcile to the
	// messages written (internal/lazylog).
	ctrl.SetLogger(lazylog.Wrap(zap.New(zap.UseFlagOptions(&zapOpts))))
	log := ctrl.Log.WithName("setup")

	switch limit, ok, err := memlimit.SoftLimit(os.Getenv); {
	case err != nil:
		log.Error(err, "ignoring the container's memory limit")
	case ok:
		debug.SetMemoryLimit(limit)
		log.Info("set the Go runtime's soft memory limit from the container's", "bytes", limit, "fraction", memlimit.Fraction)
	}

	cfg, err := ctrl.GetConfig()
	if err != nil {
		log.Error(err, "unable to load a kubeconfig")
		os.Exit(1)
	}
	if err := controllers.Run(ctrl.SetupSignalHandler(), cfg, opts); err != nil {
		log.Error(err, "manager stopped with an error")
		os.Exit(1)
	}
}
