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
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/registry"
)

// adapterFlags say where the operator's adapters find their components,
// one entry per descriptor of the registry; the defaults are the
// operator's.
type adapterFlags struct {
	adapters         []adapterFlag
	minIPv4, minIPv6 int
}

// adapterFlag is one adapter's --<name>-configmap, --<name>-configmap-key
// and --<name>-daemonset.
type adapterFlag struct {
	desc                      adapters.Descriptor
	configMap, key, daemonSet string
}

// DefaultTargets are where the operator's adapters find their components
// by default.
func DefaultTargets() []AdapterTarget {
	f := defaultAdapterFlags(registry.All())
	targets, err := f.targets()
	if err != nil {
		panic(err) // the operator's defaults are namespace/name
	}
	return targets
}

func defaultAdapterFlags(descs []adapters.Descriptor) adapterFlags {
	f := adapterFlags{minIPv4: adapters.DefaultLimits.IPv4, minIPv6: adapters.DefaultLimits.IPv6}
	for _, d := range descs {
		f.adapters = append(f.adapters, adapterFlag{desc: d,
			configMap: d.DefaultConfigMap.NamespacedName.String(), key: d.DefaultConfigMap.Key, daemonSet: d.DefaultDaemonSet.String()})
	}
	return f
}

// bind adds the flags to fs; status, check and plan each bind them to the
// same values.
func (a *adapterFlags) bind(fs *pflag.FlagSet) {
	for i := range a.adapters {
		f := &a.adapters[i]
		fs.StringVar(&f.configMap, f.desc.ConfigMapFlag(), f.configMap, f.desc.KubectlHelp.ConfigMap)
		fs.StringVar(&f.key, f.desc.ConfigMapKeyFlag(), f.key, f.desc.KubectlHelp.ConfigMapKey)
		fs.StringVar(&f.daemonSet, f.desc.DaemonSetFlag(), f.daemonSet, f.desc.KubectlHelp.DaemonSet)
	}
	fs.IntVar(&a.minIPv4, "adapter-min-covering-prefix-ipv4", a.minIPv4, "The operator's --adapter-min-covering-prefix-ipv4.")
	fs.IntVar(&a.minIPv6, "adapter-min-covering-prefix-ipv6", a.minIPv6, "The operator's --adapter-min-covering-prefix-ipv6.")
}

func (a *adapterFlags) targets() ([]AdapterTarget, error) {
	limits := adapters.DefaultLimits
	limits.IPv4, limits.IPv6 = a.minIPv4, a.minIPv6
	var errs []error
	key := func(flagName, s string) client.ObjectKey {
		ns, name, ok := strings.Cut(s, "/")
		if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
			errs = append(errs, fmt.Errorf("--%s %q is not namespace/name", flagName, s))
		}
		return client.ObjectKey{Namespace: ns, Name: name}
	}
	out := make([]AdapterTarget, 0, len(a.adapters))
	for _, f := range a.adapters {
		out = append(out, AdapterTarget{Adapter: f.desc,
			ConfigMap: key(f.desc.ConfigMapFlag(), f.configMap), ConfigMapKey: f.key,
			DaemonSet: key(f.desc.DaemonSetFlag(), f.daemonSet), Limits: limits})
	}
	return out, errors.Join(errs...)
}
