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

package metrics

import (
	"net/http"
	"path"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// authRequests counts the TokenReviews and SubjectAccessReviews the secure
// metrics endpoint sends to check scrapers. They are POSTs, so they also
// appear in client-go's rest_client_requests_total{method="POST"}; this
// tells them apart from writes (a replica that does not lead writes nothing
// else).
var authRequests = sync.OnceValue(func() *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "podnetwork_metrics_auth_requests_total",
		Help: "Requests the secure metrics endpoint sent to the apiserver to authenticate (tokenreviews) and authorize (subjectaccessreviews) scrapes, by resource; results are cached for a minute.",
	}, []string{"resource"})
	crmetrics.Registry.MustRegister(c)
	return c
})

// CountAuthRequests returns a copy of client whose requests are counted in
// podnetwork_metrics_auth_requests_total by the resource they address; give
// it to the metrics endpoint's authentication and authorization filter.
func CountAuthRequests(client *http.Client) *http.Client {
	counter := authRequests()
	next := client.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	counted := *client
	counted.Transport = roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		counter.WithLabelValues(path.Base(req.URL.Path)).Inc()
		return next.RoundTrip(req)
	})
	return &counted
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
