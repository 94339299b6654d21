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

package adapters

import (
	"fmt"

	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"

	"podnetwork.io/operator/internal/adapters/flannel"
	"podnetwork.io/operator/internal/adapters/kubeproxy"
)

// Names of the adapters' PodNetworkConsumers and their field managers.
const (
	KubeProxyConsumerName     = "kube-proxy"
	KubeProxyFieldManager     = "podnetwork-operator/kube-proxy"
	FlannelConsumerName       = "flannel"
	FlannelFieldManager       = "podnetwork-operator/flannel"
	kubeProxyConsumerDescribe = "kube-proxy adapter of podnetwork-operator: manages clusterCIDR in kube-proxy's ConfigMap and restarts its DaemonSet."
	flannelConsumerDescribe   = "flannel adapter of podnetwork-operator: manages Network and IPv6Network in flannel's net-conf.json and restarts its DaemonSet."
)

// Setup registers the enabled adapters: each registers its
// PodNetworkConsumer once it is leader and reconciles its component.
func Setup(mgr ctrl.Manager, opts Options) error {
	if err := opts.validate(); err != nil {
		return err
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	var rs []*Reconciler
	if opts.KubeProxy {
		rs = append(rs, &Reconciler{
			Client: mgr.GetClient(), Cache: mgr.GetCache(), Clock: clk, Limits: opts.Limits,
			Consumer: KubeProxyConsumerName, Description: kubeProxyConsumerDescribe, FieldManager: KubeProxyFieldManager,
			ConfigMap: opts.KubeProxyConfigMap, DaemonSet: opts.KubeProxyDaemonSet,
			Plan: kubeproxy.Plan,
		})
	}
	if opts.Flannel {
		rs = append(rs, &Reconciler{
			Client: mgr.GetClient(), Cache: mgr.GetCache(), Clock: clk, Limits: opts.Limits,
			Consumer: FlannelConsumerName, Description: flannelConsumerDescribe, FieldManager: FlannelFieldManager,
			ConfigMap: opts.FlannelConfigMap, DaemonSet: opts.FlannelDaemonSet,
			Plan: flannel.Plan, Proof: flannelProof, ProofWhat: flannelProofWhat,
		})
	}
	for _, r := range rs {
		r.Recorder = mgr.GetEventRecorder("podnetwork-" + r.Consumer + "-adapter")
		if err := r.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the %s adapter: %w", r.Consumer, err)
		}
		if err := mgr.Add(r.consumerClient().Registration(r.spec())); err != nil {
			return fmt.Errorf("adding the %s adapter's registration: %w", r.Consumer, err)
		}
	}
	return nil
}
