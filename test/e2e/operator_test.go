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
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"

	. "github.com/onsi/gomega"

	"podnetwork.io/operator/test/framework/cluster"
)

// operatorProcess is one operator replica.
type operatorProcess struct {
	name        string
	proc        *cluster.Process
	metricsAddr string
}

func startOperatorProcess(name, kubeconfig string) *operatorProcess {
	metrics := freeAddr()
	p, err := controlPlane.Cluster.Run(name, managerBinary(),
		"--kubeconfig="+kubeconfig,
		"--leader-election-namespace="+releaseNamespace,
		"--metrics-bind-address="+metrics,
		"--health-probe-bind-address="+freeAddr(),
		"--zap-log-level=debug",
		"--enable-audit", "--audit-interval=10s",
	)
	Expect(err).NotTo(HaveOccurred())
	return &operatorProcess{name: name, proc: p, metricsAddr: metrics}
}

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer l.Close()
	return l.Addr().String()
}

// scrape returns the process's /metrics text, read over HTTPS with the token
// of a ServiceAccount bound to the chart's metrics-reader role.
func (o *operatorProcess) scrape() (string, error) {
	token, err := metricsToken(metricsReaderSA)
	if err != nil {
		return "", err
	}
	code, body, err := metricsGet(o.metricsAddr, token)
	if err != nil {
		return "", fmt.Errorf("scraping %s: %w", o.name, err)
	}
	if code != http.StatusOK {
		return "", fmt.Errorf("scraping %s: HTTP %d: %s", o.name, code, body)
	}
	return body, nil
}

// writes counts the operator's write requests to the apiserver (POST, PUT,
// PATCH, DELETE) from client-go's request metric, less the TokenReviews and
// SubjectAccessReviews (POSTs too) its metrics endpoint sent to check
// scrapers.
func (o *operatorProcess) writes() (int, error) {
	body, err := o.scrape()
	if err != nil {
		return 0, err
	}
	total := 0
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "podnetwork_metrics_auth_requests_total{") {
			fields := strings.Fields(line)
			v, err := strconv.ParseFloat(fields[len(fields)-1], 64)
			if err != nil {
				return 0, fmt.Errorf("parsing %q: %w", line, err)
			}
			total -= int(v)
			continue
		}
		if !strings.HasPrefix(line, "rest_client_requests_total{") {
			continue
		}
		if !(strings.Contains(line, `method="POST"`) || strings.Contains(line, `method="PUT"`) ||
			strings.Contains(line, `method="PATCH"`) || strings.Contains(line, `method="DELETE"`)) {
			continue
		}
		fields := strings.Fields(line)
		v, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		if err != nil {
			return 0, fmt.Errorf("parsing %q: %w", line, err)
		}
		total += int(v)
	}
	return total, nil
}

// isLeader reads client-go's leader-election gauge of the process.
func (o *operatorProcess) isLeader() bool {
	if o.proc.Exited() {
		return false
	}
	body, err := o.scrape()
	if err != nil {
		return false
	}
	return strings.Contains(body, `leader_election_master_status{name="podnetwork-operator"} 1`)
}

// leader returns the operator process that leads, or nil.
func leader() *operatorProcess {
	for _, o := range operators {
		if o.isLeader() {
			return o
		}
	}
	return nil
}

// follower returns a live operator process that does not lead, or nil.
func follower() *operatorProcess {
	for _, o := range operators {
		if !o.proc.Exited() && !o.isLeader() {
			return o
		}
	}
	return nil
}
