package io.tideline.core.quota;

import io.tideline.core.model.WorkloadClass.Lane;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a quota definition before the service accepts it: every problem is reported with the
 * node's path and a reason (negative or non-finite numbers, unknown parents, wrong levels, children's
 * floors exceeding their parent's, guarantees exceeding the fleet or their Q1 segment), so a bad
 * definition is refused whole with all its faults listed rather than half-applied.
 */
public final class QuotaDefinitionValidator {

  /** Every problem in declaration order, then the whole-tree checks; empty when usable. */
  public List<DefinitionError> validate(QuotaDefinition def) {
    List<DefinitionError> out = new ArrayList<>();
    // 1. Per node: path, level, numbers.
    Set<String> seen = new HashSet<>();
    Map<String, String> servedBy = new HashMap<>();
    int roots = 0;
    for (QuotaNode n : def.nodes()) {
      String path = n.path() == null ? "<no path>" : n.path();
      if (n.path() == null || n.path().isBlank() || n.path().startsWith("/")
          || n.path().endsWith("/") || n.path().contains("//")) {
        out.add(new DefinitionError(path, "path must be non-empty segments separated by '/'"));
        continue;
      }
      if (!seen.add(n.path())) {
        out.add(new DefinitionError(path, "duplicate path"));
        continue;
      }
      if (n.kind() == null) {
        out.add(new DefinitionError(path, "kind is required"));
        continue;
      }
      checkLevel(def, n, out);
      if (n.kind() == NodeKind.ORGANISATION) {
        roots++;
      }
      checkAmount(out, path, "guaranteed floor", n.guaranteedGpus(), false);
      checkAmount(out, path, "borrowing cap", n.borrowCapGpus(), true);
      checkAmount(out, path, "lending limit", n.lendLimitGpus(), true);
      if (!(n.weight() > 0) || Double.isInfinite(n.weight())) {
        out.add(new DefinitionError(path, "fair-share weight must be positive, got " + n.weight()));
      }
      checkServices(n, servedBy, out);
    }
    if (roots != 1) {
      out.add(new DefinitionError("<root>",
          "exactly one ORGANISATION root is required, found " + roots));
    }
    // 2. Children's floors must fit in their parent's floor (Q2 subdivision).
    for (QuotaNode parent : def.nodes()) {
      if (parent.path() == null || def.node(parent.path()).orElse(null) != parent) {
        continue;
      }
      List<QuotaNode> kids = def.children(parent.path());
      double sum = kids.stream().mapToDouble(QuotaNode::guaranteedGpus).sum();
      if (!kids.isEmpty() && !Gpus.le(sum, parent.guaranteedGpus())) {
        out.add(new DefinitionError(parent.path(), "children's floors " + Gpus.fmt(sum)
            + " exceed this node's floor " + Gpus.fmt(parent.guaranteedGpus())));
      }
    }
    return out;
  }

  /**
   * Everything {@link #validate(QuotaDefinition)} finds, plus the fit against the fleet and its Q1
   * segments: inference queues' floors within the online guarantee, training and batch queues'
   * floors within the offline guarantee, all floors within the fleet.
   */
  public List<DefinitionError> validate(QuotaDefinition def, QuotaSegments segments) {
    List<DefinitionError> out = validate(def);
    Map<Lane, Double> byLane = new EnumMap<>(Lane.class);
    for (QuotaNode q : def.queues()) {
      if (q.lane() != null) {
        byLane.merge(q.lane(), q.guaranteedGpus(), Double::sum);
      }
    }
    double online = byLane.getOrDefault(Lane.INFERENCE, 0.0);
    double offline = byLane.getOrDefault(Lane.TRAINING, 0.0) + byLane.getOrDefault(Lane.BATCH, 0.0);
    if (!Gpus.le(online, segments.onlineGuaranteed())) {
      out.add(new DefinitionError("<inference queues>", "floors " + Gpus.fmt(online)
          + " exceed the online guaranteed segment " + Gpus.fmt(segments.onlineGuaranteed())));
    }
    if (!Gpus.le(offline, segments.offlineGuaranteed())) {
      out.add(new DefinitionError("<training+batch queues>", "floors " + Gpus.fmt(offline)
          + " exceed the offline guaranteed segment " + Gpus.fmt(segments.offlineGuaranteed())));
    }
    if (!Gpus.le(online + offline, segments.fleetGpus())) {
      out.add(new DefinitionError("<all queues>", "floors " + Gpus.fmt(online + offline)
          + " exceed the fleet of " + Gpus.fmt(segments.fleetGpus()) + " GPUs"));
    }
    return out;
  }

  private static void checkLevel(QuotaDefinition def, QuotaNode n, List<DefinitionError> out) {
    String parentPath = n.parentPath();
    NodeKind expected = n.kind().parentKind();
    if (expected == null) {
      if (parentPath != null) {
        out.add(new DefinitionError(n.path(), "an ORGANISATION must be a root (no '/' in its path)"));
      }
    } else if (parentPath == null) {
      out.add(new DefinitionError(n.path(), "a " + n.kind() + " needs a parent " + expected));
    } else {
      QuotaNode parent = def.node(parentPath).orElse(null);
      if (parent == null) {
        out.add(new DefinitionError(n.path(), "unknown parent '" + parentPath + "'"));
      } else if (parent.kind() != expected) {
        out.add(new DefinitionError(n.path(), "a " + n.kind() + " must sit under a " + expected
            + ", but '" + parentPath + "' is a " + parent.kind()));
      }
    }
    if (n.kind() == NodeKind.QUEUE) {
      if (n.lane() == null) {
        out.add(new DefinitionError(n.path(), "a QUEUE must name its lane"));
      } else if (parentPath != null) {
        long sameLane = def.children(parentPath).stream()
            .filter(s -> s.kind() == NodeKind.QUEUE && s.lane() == n.lane()).count();
        if (sameLane > 1 && def.children(parentPath).stream()
            .filter(s -> s.kind() == NodeKind.QUEUE && s.lane() == n.lane())
            .findFirst().orElseThrow() != n) {
          out.add(new DefinitionError(n.path(), "team '" + parentPath + "' already has a "
              + n.lane() + " queue"));
        }
      }
    } else if (n.lane() != null) {
      out.add(new DefinitionError(n.path(), "only a QUEUE has a lane, this is a " + n.kind()));
    }
  }

  /**
   * Q5 mapping: only an INFERENCE queue serves online services, a service id is not blank, and no
   * service is served by two queues (its guarantee would be counted twice).
   */
  private static void checkServices(
      QuotaNode n, Map<String, String> servedBy, List<DefinitionError> out) {
    if (n.services().isEmpty()) {
      return;
    }
    if (n.kind() != NodeKind.QUEUE || n.lane() != Lane.INFERENCE) {
      out.add(new DefinitionError(n.path(), "only an INFERENCE queue serves online services, this"
          + " is a " + n.kind() + (n.lane() == null ? "" : " of lane " + n.lane())));
      return;
    }
    for (String s : n.services()) {
      if (s.isBlank()) {
        out.add(new DefinitionError(n.path(), "a service id must not be blank"));
        continue;
      }
      String first = servedBy.putIfAbsent(s, n.path());
      if (first != null) {
        out.add(new DefinitionError(n.path(), "service '" + s + "' is already served by '" + first
            + "'"));
      }
    }
  }

  private static void checkAmount(
      List<DefinitionError> out, String path, String what, double v, boolean infiniteOk) {
    if (Double.isNaN(v) || v < 0) {
      out.add(new DefinitionError(path, what + " must not be negative, got " + Gpus.fmt(v)));
    } else if (Double.isInfinite(v) && !infiniteOk) {
      out.add(new DefinitionError(path, what + " must be finite"));
    }
  }
}
