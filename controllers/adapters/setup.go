package adapters

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters/flannel"
	"podnetwork.io/operator/internal/adapters/kubeproxy"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
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
			Client: mgr.GetClient(), Clock: clk, Limits: opts.Limits,
			Consumer: KubeProxyConsumerName, Description: kubeProxyConsumerDescribe, FieldManager: KubeProxyFieldManager,
			ConfigMap: opts.KubeProxyConfigMap, DaemonSet: opts.KubeProxyDaemonSet,
			Plan: kubeproxy.Plan,
		})
	}
	if opts.Flannel {
		rs = append(rs, &Reconciler{
			Client: mgr.GetClient(), Clock: clk, Limits: opts.Limits,
			Consumer: FlannelConsumerName, Description: flannelConsumerDescribe, FieldManager: FlannelFieldManager,
			ConfigMap: opts.FlannelConfigMap, DaemonSet: opts.FlannelDaemonSet,
			Plan: flannel.Plan, Proof: flannelProof, ProofWhat: flannelProofWhat,
		})
	}
	for _, r := range rs {
		if err := r.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the %s adapter: %w", r.Consumer, err)
		}
		if err := mgr.Add(manager.RunnableFunc(r.register)); err != nil {
			return fmt.Errorf("adding the %s adapter's registration: %w", r.Consumer, err)
		}
	}
	return nil
}

// register creates the adapter's PodNetworkConsumer, required, unless it
// exists (an admin may have made it optional; that is kept). It retries until
// it succeeds or the manager stops, and is not repeated: an admin who deletes
// the consumer no longer wants transitions to wait for this adapter.
func (r *Reconciler) register(ctx context.Context) error {
	obj := &podnetworkv1alpha1.PodNetworkConsumer{
		ObjectMeta: metav1.ObjectMeta{Name: r.Consumer},
		Spec: podnetworkv1alpha1.PodNetworkConsumerSpec{
			Required:    ptr.To(true),
			Description: r.Description,
		},
	}
	err := wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
		err := r.Client.Create(ctx, obj, client.FieldOwner(r.FieldManager))
		if err == nil || apierrors.IsAlreadyExists(err) {
			return true, nil
		}
		ctrl.LoggerFrom(ctx).Error(err, "Registering PodNetworkConsumer failed; retrying", "podNetworkConsumer", r.Consumer)
		return false, nil
	})
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("registering PodNetworkConsumer %s: %w", r.Consumer, err)
	}
	return nil
}
