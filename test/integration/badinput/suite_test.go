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

// Package badinput_test writes malformed objects into a real control plane
// (kube-apiserver and etcd from their Go modules, test/framework) while the
// operator runs, the way a careless admin or a hostile client would: what
// the apiserver refuses is shown refused; for what it lets through, each
// spec checks the event or condition that reports it, and that the operator
// keeps working (nodes still get podCIDRs, ranges still move on). The
// writes are test/framework's, which chaos storms reuse.
package badinput_test

import (
	"testing"
	"time"

	"podnetwork.io/operator/test/framework"
)

var (
	suite     = framework.NewSuite("Bad Input Suite", framework.ControlPlaneOptions{})
	suiteCtx  = suite.Ctx
	k8sClient = suite.API
)

func TestBadInput(t *testing.T) { suite.Run(t, 60*time.Second, 100*time.Millisecond) }
