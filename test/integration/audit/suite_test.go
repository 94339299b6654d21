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

// Package audit_test runs the operator with its continuous audit on,
// in-process against a real kube-apiserver and etcd (test/framework), and
// checks what it reports, as metrics and as events, on a cluster that
// disagrees with its pod network and on one that does not.
package audit_test

import (
	"testing"
	"time"

	"podnetwork.io/operator/test/framework"
)

var (
	suite     = framework.NewSuite("Audit Suite", framework.ControlPlaneOptions{})
	ctx       = suite.Ctx
	k8sClient = suite.API
)

func TestAudit(t *testing.T) { suite.Run(t, 30*time.Second, 100*time.Millisecond) }
