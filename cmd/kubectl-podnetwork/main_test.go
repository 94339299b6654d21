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

package main

import (
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// TestAuthProviders: the binary knows the kubeconfig auth providers kubectl
// knows. oidc works; azure and gcp say which exec plugin replaced them.
func TestAuthProviders(t *testing.T) {
	oidc, err := rest.GetAuthProvider("https://example.com", &clientcmdapi.AuthProviderConfig{Name: "oidc", Config: map[string]string{
		"idp-issuer-url": "https://issuer.example.com", "client-id": "kubectl", "id-token": "token",
	}}, nil)
	if err != nil || oidc == nil {
		t.Errorf("oidc: %v", err)
	}
	for _, name := range []string{"azure", "gcp"} {
		_, err := rest.GetAuthProvider("https://example.com", &clientcmdapi.AuthProviderConfig{Name: name}, nil)
		if err == nil || strings.Contains(err.Error(), "no Auth Provider found") {
			t.Errorf("%s: %v, want the provider's own error", name, err)
		}
	}
	if _, err := rest.GetAuthProvider("https://example.com", &clientcmdapi.AuthProviderConfig{Name: "nosuch"}, nil); err == nil ||
		!strings.Contains(err.Error(), "no Auth Provider found") {
		t.Errorf("an unknown provider: %v", err)
	}
}
