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

// Package nodepatch sends NodeIPAM's podCIDR patches, one per node of a
// burst, on a shorter path than client-go's rest.Request. In a 5,000-node
// burst client-go's request machinery around the HTTP round trip (building
// the URL twice per request, once for the throttle's log line and metrics,
// retry bookkeeping, content negotiation of an answer nobody decodes) was a
// tenth of the operator's CPU (docs/performance.md). The Writer keeps what
// matters of it: the same token-bucket rate limit per client, the same
// client-go metrics (rest_client_requests_total and the latency and size
// histograms, so dashboards do not change), resending a request API
// Priority and Fairness turned away with a Retry-After, and API errors as
// apierrors.StatusError.
package nodepatch
