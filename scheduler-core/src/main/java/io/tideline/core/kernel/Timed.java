package io.tideline.core.kernel;

import java.time.Instant;

/**
 * An input of a kernel as the {@link Inbox} orders it: the event time it carries, the rank of its
 * kind among inputs of the same instant, and its key. Together with the arrival sequence these
 * give the <em>canonical order</em> of a cycle's inputs (see {@link Inbox}).
 */
public interface Timed {

  /** The event time the input carries (never the time it arrived). */
  Instant at();

  /**
   * Rank of the input's kind among inputs with the same event time: lower first. Kernels rank
   * facts (what happened) before requests (what someone asks for), so a request is answered on
   * every fact of its instant.
   */
  int rank();

  /**
   * The input's key (job, node, service, cluster). Inputs of equal time and rank are ordered by
   * it; inputs that also share the key come from one producer and one partition, so their arrival
   * order is the same on every transport.
   */
  String key();
}
