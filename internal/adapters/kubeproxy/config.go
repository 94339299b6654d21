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

package kubeproxy

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	kubeproxyconfigv1alpha1 "k8s.io/kube-proxy/config/v1alpha1"
)

// DefaultConfigMapKey is the key of kubeadm's kube-proxy ConfigMap that holds
// the KubeProxyConfiguration.
const DefaultConfigMapKey = "config.conf"

var (
	scheme  = runtime.NewScheme()
	strict  runtime.Decoder
	lenient runtime.Decoder
)

func init() {
	utilruntime.Must(kubeproxyconfigv1alpha1.AddToScheme(scheme))
	strict = serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
	lenient = serializer.NewCodecFactory(scheme).UniversalDeserializer()
}

// Parse decodes a kube-proxy configuration file the way kube-proxy does:
// strictly first, then, if only unknown or duplicate fields stand in the
// way, leniently (kube-proxy logs those and starts anyway). The file must
// declare apiVersion kubeproxy.config.k8s.io/v1alpha1 and kind
// KubeProxyConfiguration.
func Parse(text string) (*kubeproxyconfigv1alpha1.KubeProxyConfiguration, error) {
	obj, _, err := strict.Decode([]byte(text), nil, nil)
	if runtime.IsStrictDecodingError(err) {
		obj, _, err = lenient.Decode([]byte(text), nil, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("decoding KubeProxyConfiguration: %w", err)
	}
	cfg, ok := obj.(*kubeproxyconfigv1alpha1.KubeProxyConfiguration)
	if !ok {
		return nil, fmt.Errorf("decoding KubeProxyConfiguration: got %T", obj)
	}
	return cfg, nil
}
