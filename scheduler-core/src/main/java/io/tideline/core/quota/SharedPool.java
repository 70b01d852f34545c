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
    double pool = Math.max(0, ledger.fleetGpus() - def.queueFloorSum());
    double lendable = def.root().map(r -> lendable(def, ledger, r)).orElse(0.0);
    return new SharedPool(Gpus.snap(pool), Gpus.snap(lendable), ledger.totalBorrowed());
  }

  /** Everything borrowers may hold at once. */
  public double borrowableGpus() {
    return poolGpus + lendableGpus;
  }

  /** What is still free to borrow (negative when borrowers hold more than may be lent: reclaim). */
  public double freeGpus() {
    return Gpus.snap(borrowableGpus() - borrowedGpus);
  }

  private static double lendable(QuotaDefinition def, QuotaLedger ledger, QuotaNode n) {
    double own;
    if (n.kind() == NodeKind.QUEUE) {
      own = Math.max(0, n.guaranteedGpus() - ledger.usage(n.path()).guaranteedUsed());
    } else {
      List<QuotaNode> kids = def.children(n.path());
      own = 0;
      for (QuotaNode k : kids) {
        own += lendable(def, ledger, k);
      }
    }
    return Math.min(n.lendLimitGpus(), own);
  }
}
