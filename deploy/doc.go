// Package deploy holds what runs gotrace on a fleet: the Containerfile of
// a FROM-scratch image with the static binary, and in kubernetes/ the
// manifests of a DaemonSet serving a script's maps as Prometheus metrics
// on every node, a PodMonitor, and a one-shot Job pinned to one node. Its
// tests validate the manifests offline with kubectl when it is installed.
package deploy
