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

package framework

import (
	"errors"
	"fmt"
	"path/filepath"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/test/framework/cluster"
)

// ControlPlaneOptions says what to start besides etcd and kube-apiserver.
type ControlPlaneOptions struct {
	// WithoutCRDs leaves the operator's CRDs out (the e2e suite and the demo
	// install them with the chart).
	WithoutCRDs bool
	// BindAddress is the address kube-apiserver serves on (loopback when
	// empty); see cluster.Options.
	BindAddress string
	// ControllerManager, when set, runs kube-controller-manager.
	ControllerManager *cluster.ControllerManagerOptions
	// Scheduler runs kube-scheduler.
	Scheduler bool
	// Kwok, when set, runs kwok.
	Kwok *cluster.KwokOptions
	// APIServerArgs are extra kube-apiserver flags (name → value), for
	// example feature gates that let older formats through.
	APIServerArgs map[string]string
	// ServiceCIDR is kube-apiserver's --service-cluster-ip-range
	// (cluster.DefaultServiceCIDR when empty).
	ServiceCIDR string
	// Restartable lets the test restart kube-apiserver and etcd; see
	// cluster.Options.
	Restartable bool
}

// ControlPlane is a running local control plane with an admin client.
type ControlPlane struct {
	Cluster *cluster.Cluster
	// Config is the admin configuration with client limits high enough that
	// a spec creating hundreds of objects is never throttled.
	Config *rest.Config
	// Client is an admin client on Config.
	Client client.WithWatch
}

// StartControlPlane starts etcd and kube-apiserver with the CRDs of the
// repository's config/crd/bases, and what opts asks for.
func StartControlPlane(opts ControlPlaneOptions) (*ControlPlane, error) {
	copts := cluster.Options{
		BindAddress: opts.BindAddress, APIServerArgs: opts.APIServerArgs,
		ServiceCIDR: opts.ServiceCIDR, Restartable: opts.Restartable,
	}
	if !opts.WithoutCRDs {
		root, err := cluster.RepoRoot()
		if err != nil {
			return nil, err
		}
		copts.CRDDirectoryPaths = []string{filepath.Join(root, "config", "crd", "bases")}
	}
	c, err := cluster.Start(copts)
	if err != nil {
		return nil, err
	}
	cp := &ControlPlane{Cluster: c, Config: rest.CopyConfig(c.Config)}
	cp.Config.QPS, cp.Config.Burst = 1000, 2000
	if err := cp.startComponents(opts); err != nil {
		return nil, errors.Join(err, c.Stop())
	}
	if cp.Client, err = client.NewWithWatch(cp.Config, client.Options{Scheme: controllers.Scheme()}); err != nil {
		return nil, errors.Join(fmt.Errorf("creating the admin client: %w", err), c.Stop())
	}
	return cp, nil
}

func (cp *ControlPlane) startComponents(opts ControlPlaneOptions) error {
	if opts.ControllerManager != nil {
		if err := cp.Cluster.StartControllerManager(*opts.ControllerManager); err != nil {
			return err
		}
	}
	if opts.Scheduler {
		if err := cp.Cluster.StartScheduler(); err != nil {
			return err
		}
	}
	if opts.Kwok != nil {
		return cp.Cluster.StartKwok(*opts.Kwok)
	}
	return nil
}

// Stop stops everything the control plane started.
func (cp *ControlPlane) Stop() error { return cp.Cluster.Stop() }
