package io.tideline.core.quota;

import java.util.List;

/**
 * How much can be borrowed right now (requirements Q1, Q3): the shared pool (fleet minus all queue
 * floors) plus the idle guarantees their owners allow to be lent, within every node's lending limit.
 * A floor that a parent does not subdivide among its children is held by no queue, so it belongs to
 * the pool.
 *
 * @param poolGpus fleet minus the sum of queue floors, never negative
 * @param lendableGpus idle guarantees lendable under the lending limits
 * @param borrowedGpus GPUs currently borrowed by all queues
 */
public record SharedPool(double poolGpus, double lendableGpus, double borrowedGpus) {

  /** The pool as it stands for a definition and a ledger. */
  public static SharedPool of(QuotaDefinition def, QuotaLedger ledger) {
    return ifAdmitted(def, ledger, null, 0, 0);
  }

  /**
   * The pool as it would stand if {@code queue} used {@code guaranteed} more GPUs of its floor and
   * borrowed {@code borrowed} more: an admission's what-if without copying the ledger.
   */
  public static SharedPool ifAdmitted(QuotaDefinition def, QuotaLedger ledger, String queue,
      double guaranteed, double borrowed) {
    double pool = Math.max(0, ledger.fleetGpus() - def.queueFloorSum());
    double lendable = def.root().map(r -> lendable(def, ledger, r, queue, guaranteed)).orElse(0.0);
    return new SharedPool(Gpus.snap(pool), Gpus.snap(lendable),
        Gpus.snap(ledger.totalBorrowed() + borrowed));
  }

  /** Everything borrowers may hold at once. */
  public double borrowableGpus() {
    return poolGpus + lendableGpus;
  }

  /** What is still free to borrow (negative when borrowers hold more than may be lent: reclaim). */
  public double freeGpus() {
    return Gpus.snap(borrowableGpus() - borrowedGpus);
  }

  private static double lendable(QuotaDefinition def, QuotaLedger ledger, QuotaNode n,
      String queue, double extra) {
    double own;
    if (n.kind() == NodeKind.QUEUE) {
      double used = ledger.usage(n.path()).guaranteedUsed() + (n.path().equals(queue) ? extra : 0);
      own = Math.max(0, n.guaranteedGpus() - used);
    } else {
      List<QuotaNode> kids = def.children(n.path());
      own = 0;
      for (QuotaNode k : kids) {
        own += lendable(def, ledger, k, queue, extra);
      }
    }
    return Math.min(n.lendLimitGpus(), own);
  }
}
