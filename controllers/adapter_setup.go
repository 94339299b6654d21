package controllers

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters"
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

// ConfigMapKey names one key of a ConfigMap.
type ConfigMapKey struct {
	types.NamespacedName
	Key string
}

func (k ConfigMapKey) String() string { return k.NamespacedName.String() + "[" + k.Key + "]" }

// AdapterOptions configures the kube-proxy and flannel adapters.
type AdapterOptions struct {
	// KubeProxy runs the kube-proxy adapter.
	KubeProxy bool
	// KubeProxyConfigMap holds kube-proxy's configuration file.
	KubeProxyConfigMap ConfigMapKey
	// KubeProxyDaemonSet runs kube-proxy.
	KubeProxyDaemonSet types.NamespacedName

	// Flannel runs the flannel adapter.
	Flannel bool
	// FlannelConfigMap holds flannel's net-conf.json.
	FlannelConfigMap ConfigMapKey
	// FlannelDaemonSet runs flanneld.
	FlannelDaemonSet types.NamespacedName

	// Limits are the shortest covering prefixes (per family) the adapters
	// write; a Pending range that would need a shorter one is rejected.
	Limits adapters.Limits

	// Clock defaults to the real clock; tests inject a fake one. Not a flag.
	Clock clock.PassiveClock
}

// DefaultAdapterOptions returns the documented defaults: both adapters off,
// pointed at the objects kubeadm and the upstream flannel manifest create.
func DefaultAdapterOptions() AdapterOptions {
	return AdapterOptions{
		KubeProxyConfigMap: ConfigMapKey{types.NamespacedName{Namespace: "kube-system", Name: "kube-proxy"}, kubeproxy.DefaultConfigMapKey},
		KubeProxyDaemonSet: types.NamespacedName{Namespace: "kube-system", Name: "kube-proxy"},
		FlannelConfigMap:   ConfigMapKey{types.NamespacedName{Namespace: "kube-flannel", Name: "kube-flannel-cfg"}, flannel.DefaultConfigMapKey},
		FlannelDaemonSet:   types.NamespacedName{Namespace: "kube-flannel", Name: "kube-flannel-ds"},
		Limits:             adapters.DefaultLimits,
	}
}

// BindFlags registers the adapter flags.
func (o *AdapterOptions) BindFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.KubeProxy, "enable-kube-proxy-adapter", o.KubeProxy,
		"Manage kube-proxy's clusterCIDR and take part in the handshake as the consumer \"kube-proxy\".")
	fs.Var((*namespacedNameFlag)(&o.KubeProxyConfigMap.NamespacedName), "kube-proxy-configmap",
		"Namespace/name of the ConfigMap holding kube-proxy's configuration file.")
	fs.StringVar(&o.KubeProxyConfigMap.Key, "kube-proxy-configmap-key", o.KubeProxyConfigMap.Key,
		"Key of the kube-proxy ConfigMap that holds the KubeProxyConfiguration.")
	fs.Var((*namespacedNameFlag)(&o.KubeProxyDaemonSet), "kube-proxy-daemonset",
		"Namespace/name of the DaemonSet running kube-proxy.")
	fs.BoolVar(&o.Flannel, "enable-flannel-adapter", o.Flannel,
		"Manage flannel's Network/IPv6Network and take part in the handshake as the consumer \"flannel\".")
	fs.Var((*namespacedNameFlag)(&o.FlannelConfigMap.NamespacedName), "flannel-configmap",
		"Namespace/name of the ConfigMap holding flannel's net-conf.json.")
	fs.StringVar(&o.FlannelConfigMap.Key, "flannel-configmap-key", o.FlannelConfigMap.Key,
		"Key of the flannel ConfigMap that holds net-conf.json.")
	fs.Var((*namespacedNameFlag)(&o.FlannelDaemonSet), "flannel-daemonset",
		"Namespace/name of the DaemonSet running flanneld.")
	fs.IntVar(&o.Limits.IPv4, "adapter-min-covering-prefix-ipv4", o.Limits.IPv4,
		"Shortest IPv4 prefix the adapters write as kube-proxy's clusterCIDR or flannel's Network; a range that would need a shorter one is rejected.")
	fs.IntVar(&o.Limits.IPv6, "adapter-min-covering-prefix-ipv6", o.Limits.IPv6,
		"Shortest IPv6 prefix the adapters write as kube-proxy's clusterCIDR or flannel's IPv6Network; a range that would need a shorter one is rejected.")
}

// validate checks the options of the enabled adapters.
func (o *AdapterOptions) validate() error {
	var errs []error
	if o.Limits.IPv4 < 0 || o.Limits.IPv4 > 32 {
		errs = append(errs, fmt.Errorf("--adapter-min-covering-prefix-ipv4 must be between 0 and 32, not %d", o.Limits.IPv4))
	}
	if o.Limits.IPv6 < 0 || o.Limits.IPv6 > 128 {
		errs = append(errs, fmt.Errorf("--adapter-min-covering-prefix-ipv6 must be between 0 and 128, not %d", o.Limits.IPv6))
	}
	check := func(on bool, what string, nn types.NamespacedName, key *string) {
		if on && (nn.Namespace == "" || nn.Name == "" || (key != nil && *key == "")) {
			errs = append(errs, fmt.Errorf("%s needs a namespace, a name and (for a ConfigMap) a key", what))
		}
	}
	check(o.KubeProxy, "the kube-proxy ConfigMap", o.KubeProxyConfigMap.NamespacedName, &o.KubeProxyConfigMap.Key)
	check(o.KubeProxy, "the kube-proxy DaemonSet", o.KubeProxyDaemonSet, nil)
	check(o.Flannel, "the flannel ConfigMap", o.FlannelConfigMap.NamespacedName, &o.FlannelConfigMap.Key)
	check(o.Flannel, "the flannel DaemonSet", o.FlannelDaemonSet, nil)
	return errors.Join(errs...)
}

// setupAdapters registers the enabled adapters: each registers its
// PodNetworkConsumer once it is leader and reconciles its component.
func setupAdapters(mgr ctrl.Manager, opts AdapterOptions) error {
	if err := opts.validate(); err != nil {
		return err
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	var rs []*AdapterReconciler
	if opts.KubeProxy {
		rs = append(rs, &AdapterReconciler{
			Client: mgr.GetClient(), Clock: clk, Limits: opts.Limits,
			Consumer: KubeProxyConsumerName, Description: kubeProxyConsumerDescribe, FieldManager: KubeProxyFieldManager,
			ConfigMap: opts.KubeProxyConfigMap, DaemonSet: opts.KubeProxyDaemonSet,
			Plan: kubeproxy.Plan,
		})
	}
	if opts.Flannel {
		rs = append(rs, &AdapterReconciler{
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
func (r *AdapterReconciler) register(ctx context.Context) error {
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

// namespacedNameFlag parses "namespace/name".
type namespacedNameFlag types.NamespacedName

func (f *namespacedNameFlag) String() string {
	if f == nil {
		return ""
	}
	return types.NamespacedName(*f).String()
}

func (f *namespacedNameFlag) Set(s string) error {
	ns, name, ok := strings.Cut(s, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return fmt.Errorf("%q is not namespace/name", s)
	}
	*f = namespacedNameFlag{Namespace: ns, Name: name}
	return nil
}
