/**
 * The Kubernetes executor (issue #17): Tideline as a secondary scheduler on an ordinary cluster
 * with the NVIDIA device plugin. Pods with {@code schedulerName: tideline} become jobs (a Kueue
 * pod group is one gang, ADR 0010), PLACED decisions bind them all or nothing through
 * {@code pods/binding} with the GPU indices in {@code tideline.io/gpus} (ADR 0011), evictions
 * annotate, give the P4 checkpoint-write time as grace and evict through {@code policy/v1}, pod
 * phases become {@code jobs.lifecycle} facts. One replica per cluster acts, by a Lease. See
 * {@link io.tideline.executor.Engine} and the module's README.
 */
package io.tideline.executor;
