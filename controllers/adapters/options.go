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
	"errors"
	"flag"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	adaptercore "podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/flannel"
	"podnetwork.io/operator/internal/adapters/kubeproxy"
)

// ConfigMapKey names one key of a ConfigMap.
type ConfigMapKey struct {
	types.NamespacedName
	Key string
}

func (k ConfigMapKey) String() string { return k.NamespacedName.String() + "[" + k.Key + "]" }

// Options configures the kube-proxy and flannel adapters.
type Options struct {
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
	Limits adaptercore.Limits

	// Clock defaults to the real clock; tests inject a fake one. Not a flag.
	Clock clock.PassiveClock
}

// DefaultOptions returns the documented defaults: both adapters off,
// pointed at the objects kubeadm and the upstream flannel manifest create.
func DefaultOptions() Options {
	return Options{
		KubeProxyConfigMap: ConfigMapKey{types.NamespacedName{Namespace: "kube-system", Name: "kube-proxy"}, kubeproxy.DefaultConfigMapKey},
		KubeProxyDaemonSet: types.NamespacedName{Namespace: "kube-system", Name: "kube-proxy"},
		FlannelConfigMap:   ConfigMapKey{types.NamespacedName{Namespace: "kube-flannel", Name: "kube-flannel-cfg"}, flannel.DefaultConfigMapKey},
		FlannelDaemonSet:   types.NamespacedName{Namespace: "kube-flannel", Name: "kube-flannel-ds"},
		Limits:             adaptercore.DefaultLimits,
	}
}

// BindFlags registers the adapter flags.
func (o *Options) BindFlags(fs *flag.FlagSet) {
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
func (o *Options) validate() error {
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
