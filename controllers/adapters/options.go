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
	"podnetwork.io/operator/internal/adapters/registry"
)

// Options configures the adapters: one Component per descriptor of the
// registry, and the limits they share.
type Options struct {
	// Components are the adapters, in the registry's order. BindFlags binds
	// flags to their fields, so the slice must not be reallocated after.
	Components []Component

	// Limits are the shortest covering prefixes (per family) the adapters
	// write; a Pending range that would need a shorter one is rejected.
	Limits adaptercore.Limits

	// Clock defaults to the real clock; tests inject a fake one. Not a flag.
	Clock clock.PassiveClock

	// NodeIPAM is true when the operator's NodeIPAM runs in this process
	// (--enable-node-ipam); the flannel adapter turns EnableIPv6 on only
	// then. Not a flag: setupControllers copies it.
	NodeIPAM bool
}

// Component is whether one adapter runs and where its component is.
type Component struct {
	// Adapter describes the adapter.
	Adapter adaptercore.Descriptor
	// Enabled runs the adapter (--enable-<name>-adapter).
	Enabled bool
	// ConfigMap holds the component's configuration (--<name>-configmap,
	// --<name>-configmap-key).
	ConfigMap adaptercore.ConfigMapKey
	// DaemonSet runs the component (--<name>-daemonset).
	DaemonSet types.NamespacedName
}

// DefaultOptions returns the documented defaults: every adapter of the
// registry off, pointed at the objects kubeadm and the upstream manifests
// create.
func DefaultOptions() Options { return OptionsFor(registry.All()) }

// OptionsFor returns the defaults for the adapters descs: each off and
// pointed at its descriptor's default ConfigMap and DaemonSet.
func OptionsFor(descs []adaptercore.Descriptor) Options {
	o := Options{Components: make([]Component, len(descs)), Limits: adaptercore.DefaultLimits}
	for i, d := range descs {
		o.Components[i] = Component{Adapter: d, ConfigMap: d.DefaultConfigMap, DaemonSet: d.DefaultDaemonSet}
	}
	return o
}

// Enable turns the named adapters on. A name no component has is a
// programming error and panics.
func (o *Options) Enable(names ...string) {
	for _, name := range names {
		i := o.index(name)
		if i < 0 {
			panic(fmt.Sprintf("no adapter %q", name))
		}
		o.Components[i].Enabled = true
	}
}

func (o *Options) index(name string) int {
	for i := range o.Components {
		if o.Components[i].Adapter.Name == name {
			return i
		}
	}
	return -1
}

// BindFlags registers the adapter flags: four per adapter, named after its
// descriptor, and the limits.
func (o *Options) BindFlags(fs *flag.FlagSet) {
	for i := range o.Components {
		c := &o.Components[i]
		d := &c.Adapter
		fs.BoolVar(&c.Enabled, d.EnableFlag(), c.Enabled, d.Help.Enable)
		fs.Var((*namespacedNameFlag)(&c.ConfigMap.NamespacedName), d.ConfigMapFlag(), d.Help.ConfigMap)
		fs.StringVar(&c.ConfigMap.Key, d.ConfigMapKeyFlag(), c.ConfigMap.Key, d.Help.ConfigMapKey)
		fs.Var((*namespacedNameFlag)(&c.DaemonSet), d.DaemonSetFlag(), d.Help.DaemonSet)
	}
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
	for i := range o.Components {
		c := &o.Components[i]
		if !c.Enabled {
			continue
		}
		if c.ConfigMap.Namespace == "" || c.ConfigMap.Name == "" || c.ConfigMap.Key == "" {
			errs = append(errs, fmt.Errorf("the %s ConfigMap needs a namespace, a name and (for a ConfigMap) a key", c.Adapter.Name))
		}
		if c.DaemonSet.Namespace == "" || c.DaemonSet.Name == "" {
			errs = append(errs, fmt.Errorf("the %s DaemonSet needs a namespace, a name and (for a ConfigMap) a key", c.Adapter.Name))
		}
	}
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
