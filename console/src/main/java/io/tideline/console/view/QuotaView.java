package io.tideline.console.view;

import io.tideline.events.BillingUsage;
import io.tideline.events.QuotaState;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Quotas (Q1-Q7) and billing (B1): the queue tree with each queue's floor (its guarantee), the GPUs
 * it uses, what it borrows beyond its floor, what of its floor it lends (unused, up to its lending
 * limit) and its fair-share standing; and the bill per tenant per UTC day. A fold of the compacted
 * {@code quota.state} and of {@code billing.usage}.
 */
public final class QuotaView {

  /** One queue of the tree; {@code depth} is its level under the root (0 for a tenant's queue). */
  public record Node(String queue, String name, int depth, String tenant, String segment,
      double floor, double used, double borrowed, double lent, double borrowCap,
      double fairShare) {}

  /** What a tenant is billed for one day. */
  public record Bill(String tenant, LocalDate day, double gpuHours, double amount,
      String currency) {}

  private record BillKey(String tenant, LocalDate day, String currency) {}

  private final Map<String, QuotaState> queues = new TreeMap<>();
  private final Map<BillKey, double[]> bills = new TreeMap<>(
      java.util.Comparator.comparing(BillKey::tenant).thenComparing(BillKey::day)
          .thenComparing(BillKey::currency));

  /** A queue's state, or {@code null} (tombstone) for a queue that is gone. */
  public void state(String queue, QuotaState s) {
    if (s == null) {
      queues.remove(queue);
    } else {
      queues.put(s.getQueue(), s);
    }
  }

  public void billing(BillingUsage u) {
    LocalDate day = u.getFrom().atZone(ZoneOffset.UTC).toLocalDate();
    double[] sum = bills.computeIfAbsent(new BillKey(u.getTenant(), day, u.getCurrency()),
        k -> new double[2]);
    sum[0] += u.getGpuSeconds() / 3600.0;
    sum[1] += u.getAmount();
  }

  /** The tree, depth first in path order (a parent before its children). */
  public List<Node> tree() {
    List<Node> out = new ArrayList<>();
    for (QuotaState s : queues.values()) {
      String[] parts = s.getQueue().split("/");
      double used = s.getUsedGuaranteedGpus() + s.getUsedBorrowedGpus();
      double lent = Math.min(s.getLendingLimitGpus(),
          Math.max(0, s.getGuaranteedGpus() - s.getUsedGuaranteedGpus()));
      out.add(new Node(s.getQueue(), parts[parts.length - 1], Math.max(0, parts.length - 1),
          s.getTenant(), s.getSegment().name(), s.getGuaranteedGpus(), used,
          s.getUsedBorrowedGpus(), lent, s.getBorrowCapGpus(), s.getFairShareUsage()));
    }
    return out;
  }

  /** One page of the bills, by tenant then day. */
  public Page<Bill> bills(int page, int size) {
    List<Bill> all = new ArrayList<>();
    bills.forEach((k, v) -> all.add(new Bill(k.tenant(), k.day(), v[0], v[1], k.currency())));
    return Page.of(all, page, size);
  }
}
