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
	"regexp"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"podnetwork.io/operator/internal/cli"
)

// exitStatus ends a command that printed its output with a code other
// than 0 and nothing more to say (check's errors, plan's outcome).
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// usageError is a mistake on the command line (exit code 2).
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// partialError ends a command that printed what it could compute without
// what it was not allowed to read (exit code 3).
type partialError struct{ unreadable []cli.Unreadable }

func (e *partialError) Error() string { return "could not read " + e.what() }

// what names what could not be read: "nodes, configmaps kube-system/x".
func (e *partialError) what() string {
	names := make([]string, len(e.unreadable))
	for i, u := range e.unreadable {
		names[i] = u.String()
	}
	return strings.Join(names, ", ")
}

// permissionsHint closes every error about a missing permission.
const permissionsHint = "hint: the permissions the plugin needs are listed in docs/kubectl-plugin.md#permissions; " +
	"`kubectl auth can-i --list` shows yours."

// authorizationDenial matches the message the API server's authorization
// filter gives every request it refuses (RBAC, Node, webhook authorizers
// alike; k8s.io/apiserver's responsewriters.ForbiddenStatusError):
// `User "alice" cannot list resource "nodes" in API group "" at the cluster
// scope`. Admission refusals are 403s too, but say "admission webhook ...
// denied the request" or "ValidatingAdmissionPolicy ... denied request".
var authorizationDenial = regexp.MustCompile(`User "([^"]*)" cannot (\S+) (?:resource "([^"]*)" in API group "([^"]*)"|path "([^"]*)")`)

// isAuthorizationDenial reports whether err is the API server's
// authorization refusing the request: the user lacks a permission.
func isAuthorizationDenial(err error) bool {
	return apierrors.IsForbidden(err) && authorizationDenial.MatchString(statusMessage(err))
}

// statusMessage is the message of an API error's Status, or err's text.
func statusMessage(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status().Message
	}
	return err.Error()
}

// apiHint says what to do about an API error, or "".
func apiHint(err error) string {
	switch {
	case isAuthorizationDenial(err):
		m := authorizationDenial.FindStringSubmatch(statusMessage(err))
		what := m[3]
		if m[4] != "" {
			what += "." + m[4]
		}
		if what == "" {
			what = m[5]
		}
		return fmt.Sprintf("hint: user %q may not %s %s: `kubectl auth can-i %s %s` says so too.\n%s", m[1], m[2], what, m[2], what, permissionsHint)
	case apierrors.IsUnauthorized(err):
		return "hint: the API server did not accept the credentials: check the kubeconfig's user (--user, --token, an expired exec or oidc login)."
	}
	return ""
}

// rejection reads the API server's refusal of the dry-run: the CRD's schema
// or CEL rules (Invalid), or an admission webhook or policy. It returns nil
// for any other error: a missing permission to update the PodNetwork is an
// error of the plugin's user (exit code 3), not the change's.
func rejection(err error) *cli.Rejection {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || isAuthorizationDenial(err) {
		return nil
	}
	st := status.Status()
	r := &cli.Rejection{Reason: string(st.Reason), Message: st.Message}
	switch {
	case isAdmissionDenial(st.Message):
		r.By = cli.RejectedByAdmission
	case apierrors.IsForbidden(err):
		// A 403 the authorization filter did not send comes from an
		// admission plugin.
		r.By = cli.RejectedByAdmission
	case apierrors.IsInvalid(err):
		r.By = cli.RejectedByValidation
	default:
		return nil
	}
	if d := st.Details; d != nil {
		for _, cause := range d.Causes {
			switch {
			case cause.Field != "":
				r.Causes = append(r.Causes, cause.Field+": "+cause.Message)
			case cause.Message != "":
				r.Causes = append(r.Causes, cause.Message)
			}
		}
	}
	return r
}

// isAdmissionDenial reports whether an API message is an admission
// webhook's or a ValidatingAdmissionPolicy's denial (whatever status code
// and reason they chose).
func isAdmissionDenial(msg string) bool {
	return strings.Contains(msg, "admission webhook \"") && strings.Contains(msg, "\" denied the request") ||
		strings.Contains(msg, "ValidatingAdmissionPolicy '") && strings.Contains(msg, " denied request")
}
