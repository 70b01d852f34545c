package io.tideline.platform.kernel.quota;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.tideline.core.model.WorkloadClass.Lane;
import io.tideline.core.quota.DefinitionError;
import io.tideline.core.quota.NodeKind;
import io.tideline.core.quota.PreemptionGrant;
import io.tideline.core.quota.QuotaDefinition;
import io.tideline.core.quota.QuotaDefinitionValidator;
import io.tideline.core.quota.QuotaNode;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads a declarative quota definition (requirement Q2) from YAML or JSON text (JSON is valid
 * YAML) and checks it with the core's {@link QuotaDefinitionValidator}, so a document is either
 * accepted whole or refused with every reason listed. Format:
 *
 * <pre>
 * version: "2026-11-01.1"      # carried in every verdict's policy version
 * fleetGpus: 64                # GPUs in the cluster's fleet
 * nodes:
 *   - path: acme               # organisation → business line → team → queue, '/'-separated
 *     kind: ORGANISATION       # ORGANISATION | BUSINESS_LINE | TEAM | QUEUE
 *     guaranteedGpus: 48       # floor
 *     borrowCapGpus: 16        # omitted = no cap
 *     lendLimitGpus: 48        # omitted = the whole floor may be lent
 *     weight: 1                # fair-share weight, omitted = 1
 *     preemptionGrants: []     # W4; omitted = inherit the parent's
 *   - path: acme/search/ranking/training
 *     kind: QUEUE
 *     lane: TRAINING           # INFERENCE | TRAINING | BATCH (queues only)
 *   - path: acme/search/ranking/inference
 *     kind: QUEUE
 *     lane: INFERENCE
 *     guaranteedGpus: 16       # bootstrap floor, until the services' peaks are known
 *     services: [search-api]   # Q5: online services this queue serves; once the forecaster has
 *                              # a service's historical peak, the floor in force is the sum of
 *                              # ceil(70% × peak) over them (INFERENCE queues only; a service
 *                              # may be served by one queue only)
 * </pre>
 */
public final class QuotaDocuments {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

  private QuotaDocuments() {}

  /** The document as written. */
  @JsonIgnoreProperties(ignoreUnknown = false)
  public record Document(String version, Double fleetGpus, List<Node> nodes) {}

  /** One node as written; nulls take the documented defaults. */
  public record Node(String path, NodeKind kind, Lane lane, Double guaranteedGpus,
      Double borrowCapGpus, Double lendLimitGpus, Double weight,
      List<PreemptionGrant> preemptionGrants, List<String> services) {}

  /** A usable definition and its fleet. */
  public record Parsed(QuotaDefinition definition, double fleetGpus) {}

  /** Thrown with every reason a document is refused. */
  public static final class InvalidDefinition extends Exception {
    private final List<String> reasons;

    public InvalidDefinition(List<String> reasons) {
      super(String.join("; ", reasons));
      this.reasons = List.copyOf(reasons);
    }

    public List<String> reasons() {
      return reasons;
    }
  }

  /**
   * Parses and validates.
   *
   * @param expectedVersion the version the envelope claims, or {@code null} not to check it
   */
  public static Parsed parse(String text, String expectedVersion) throws InvalidDefinition {
    // 1. Syntax: YAML/JSON into the document shape (unknown fields are errors: typos must not pass).
    Document doc;
    try {
      doc = YAML.readValue(text == null ? "" : text, Document.class);
    } catch (Exception e) {
      throw new InvalidDefinition(List.of("not a quota definition document: "
          + firstLine(e.getMessage())));
    }
    if (doc == null) {
      throw new InvalidDefinition(List.of("empty document"));
    }
    // 2. Document-level fields.
    List<String> reasons = new ArrayList<>();
    if (doc.version() == null || doc.version().isBlank()) {
      reasons.add("version is required");
    } else if (expectedVersion != null && !expectedVersion.equals(doc.version())) {
      reasons.add("envelope version '" + expectedVersion + "' differs from the document's '"
          + doc.version() + "'");
    }
    if (doc.fleetGpus() == null || !(doc.fleetGpus() > 0) || doc.fleetGpus().isInfinite()) {
      reasons.add("fleetGpus must be a positive number, got " + doc.fleetGpus());
    }
    if (doc.nodes() == null || doc.nodes().isEmpty()) {
      reasons.add("nodes: at least the organisation root is required");
    }
    if (!reasons.isEmpty()) {
      throw new InvalidDefinition(reasons);
    }
    // 3. Nodes, with defaults for what was left out.
    List<QuotaNode> nodes = new ArrayList<>();
    for (Node n : doc.nodes()) {
      double floor = n.guaranteedGpus() == null ? 0 : n.guaranteedGpus();
      Set<PreemptionGrant> grants = n.preemptionGrants() == null ? null
          : n.preemptionGrants().isEmpty() ? EnumSet.noneOf(PreemptionGrant.class)
              : EnumSet.copyOf(n.preemptionGrants());
      if (n.kind() == NodeKind.ORGANISATION && grants == null) {
        grants = EnumSet.noneOf(PreemptionGrant.class);
      }
      nodes.add(new QuotaNode(n.path(), n.kind(), n.lane(), floor,
          n.borrowCapGpus() == null ? Double.POSITIVE_INFINITY : n.borrowCapGpus(),
          n.lendLimitGpus() == null ? floor : n.lendLimitGpus(),
          n.weight() == null ? 1.0 : n.weight(), grants,
          n.services() == null ? null : new TreeSet<>(n.services().stream()
              .map(x -> x == null ? "" : x).toList())));
    }
    QuotaDefinition def = QuotaDefinition.of(doc.version(), nodes);
    // 4. The core's checks, plus the floors against the declared fleet.
    List<DefinitionError> errors = new ArrayList<>(new QuotaDefinitionValidator().validate(def));
    if (def.queueFloorSum() > doc.fleetGpus() + 1e-6) {
      errors.add(new DefinitionError("<all queues>", "floors " + def.queueFloorSum()
          + " exceed the fleet of " + doc.fleetGpus() + " GPUs"));
    }
    if (!errors.isEmpty()) {
      throw new InvalidDefinition(errors.stream().map(DefinitionError::toString).toList());
    }
    return new Parsed(def, doc.fleetGpus());
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "unreadable";
    }
    int i = s.indexOf('\n');
    return i < 0 ? s : s.substring(0, i);
  }
}
