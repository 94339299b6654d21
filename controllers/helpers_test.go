package controllers_test

import (
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/config"
)

// ctrlConfigSkipNameValidation lets several managers in one test binary
// register controllers with the same name (controller-runtime rejects
// duplicate names process-wide by default).
func ctrlConfigSkipNameValidation() config.Controller {
	return config.Controller{SkipNameValidation: ptr.To(true)}
}
