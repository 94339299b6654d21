//go:build e2e

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

package e2e

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// The operator serves /metrics over HTTPS to clients whose bearer token the
// apiserver authenticates and authorizes to get /metrics. The suite installs
// the chart with metrics.readers binding its metrics-reader ClusterRole to
// metricsReaderSA; metricsOutsiderSA has no role.
const (
	metricsNamespace  = "e2e-metrics"
	metricsReaderSA   = "e2e-metrics-reader"
	metricsOutsiderSA = "e2e-metrics-outsider"
)

var (
	metricsTokensMu sync.Mutex
	metricsTokens   = map[string]string{}
)

// metricsToken returns a token of the ServiceAccount sa in metricsNamespace
// from the TokenRequest API, creating the namespace and the ServiceAccount on
// first use.
func metricsToken(sa string) (string, error) {
	metricsTokensMu.Lock()
	defer metricsTokensMu.Unlock()
	if t, ok := metricsTokens[sa]; ok {
		return t, nil
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: metricsNamespace}}
	if err := admin.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("creating namespace %s: %w", metricsNamespace, err)
	}
	account := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: metricsNamespace, Name: sa}}
	if err := admin.Create(ctx, account); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("creating ServiceAccount %s/%s: %w", metricsNamespace, sa, err)
	}
	cs, err := kubernetes.NewForConfig(controlPlane.Config)
	if err != nil {
		return "", err
	}
	tr, err := cs.CoreV1().ServiceAccounts(metricsNamespace).CreateToken(ctx, sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("requesting a token of %s/%s: %w", metricsNamespace, sa, err)
	}
	metricsTokens[sa] = tr.Status.Token
	return tr.Status.Token, nil
}

// metricsClient speaks HTTPS to the operator's metrics endpoint, whose
// certificate is self-signed (no --metrics-cert-dir).
var metricsClient = &http.Client{
	Timeout:   10 * time.Second,
	Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // self-signed
}

// metricsGet GETs https://addr/metrics with the bearer token (none when
// empty) and returns the status code and body.
func metricsGet(addr, token string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+"/metrics", nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := metricsClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// Runs before the admin's story (SpecPriority), which uninstalls the chart
// at its end and with it the metrics-reader role and the operator's right to
// review tokens.
var _ = Describe("Metrics behind authentication", Ordered, SpecPriority(1), func() {
	var live []*operatorProcess

	BeforeAll(func() {
		for _, o := range operators {
			if !o.proc.Exited() {
				live = append(live, o)
			}
		}
		Expect(live).NotTo(BeEmpty())
		for _, o := range live {
			Eventually(func() error {
				_, _, err := metricsGet(o.metricsAddr, "")
				return err
			}).Should(Succeed(), "%s serves its metrics endpoint (log: %s)", o.name, o.proc.LogPath())
		}
	})

	It("refuses a scrape without a token, or with one the apiserver does not know", func() {
		for _, o := range live {
			code, body, err := metricsGet(o.metricsAddr, "")
			Expect(err).NotTo(HaveOccurred())
			Expect(code).To(Equal(http.StatusUnauthorized), "%s without a token: %s", o.name, body)
			Expect(body).NotTo(ContainSubstring("podnetwork_"))

			// controller-runtime's filter answers 500 "Authentication failed"
			// when the TokenReview comes back with an error, as it does for a
			// malformed token: refused all the same.
			code, body, err = metricsGet(o.metricsAddr, "not-a-token")
			Expect(err).NotTo(HaveOccurred())
			Expect(code).To(BeElementOf(http.StatusUnauthorized, http.StatusInternalServerError), "%s with a bad token: %s", o.name, body)
			Expect(body).NotTo(ContainSubstring("podnetwork_"))
		}
	})

	It("serves no plain HTTP", func() {
		for _, o := range live {
			resp, err := http.Get("http://" + o.metricsAddr + "/metrics")
			if err == nil {
				resp.Body.Close()
				Expect(resp.StatusCode).To(Equal(http.StatusBadRequest), "%s: an HTTP request to the HTTPS server", o.name)
			}
		}
	})

	It("forbids a ServiceAccount without the metrics-reader role", func() {
		token, err := metricsToken(metricsOutsiderSA)
		Expect(err).NotTo(HaveOccurred())
		for _, o := range live {
			code, body, err := metricsGet(o.metricsAddr, token)
			Expect(err).NotTo(HaveOccurred())
			Expect(code).To(Equal(http.StatusForbidden), "%s: %s", o.name, body)
			Expect(body).To(ContainSubstring("system:serviceaccount:" + metricsNamespace + ":" + metricsOutsiderSA))
		}
	})

	It("serves the metrics to a ServiceAccount bound to the metrics-reader role", func() {
		token, err := metricsToken(metricsReaderSA)
		Expect(err).NotTo(HaveOccurred())
		for _, o := range live {
			code, body, err := metricsGet(o.metricsAddr, token)
			Expect(err).NotTo(HaveOccurred())
			Expect(code).To(Equal(http.StatusOK), "%s: %s", o.name, body)
			Expect(body).To(ContainSubstring("podnetwork_cidr_not_available_total"))
			Expect(body).To(ContainSubstring(`podnetwork_metrics_auth_requests_total{resource="tokenreviews"}`))
			Expect(body).To(ContainSubstring(`podnetwork_metrics_auth_requests_total{resource="subjectaccessreviews"}`))
		}
	})
})
