package io.tideline.notifier.compose;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Plain-language sentences of the notices in each {@link Lang} (P7): the reason built from an
 * {@link Explanation}, the compensation, and times in the user's zone. Pure functions of their
 * arguments, so the words users read are unit-tested; the templates only lay them out.
 */
public final class Wording {

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm '('VV')'", Locale.ROOT);

  private Wording() {}

  /** {@code t} in the user's zone, e.g. {@code 2026-11-02 22:00 (Europe/Berlin)}. */
  public static String time(Instant t, ZoneId zone) {
    return t == null ? "" : TIME.format(t.atZone(zone));
  }

  /** Why the job was preempted, from the decision's rule trace. */
  public static String preemptionReason(Explanation e, Lang lang) {
    String who = rightWords(e.preemptorRight(), lang);
    String protection = e.protectionDetail() == null ? ""
        : (lang == Lang.ZH_CN ? "（" + e.protectionDetail() + "）" : " (" + e.protectionDetail() + ")");
    String others = e.victimCount() > 1
        ? (lang == Lang.ZH_CN ? "，本次决策的 " + e.victimCount() + " 个作业合计 "
            + d2(e.totalCostGpuHours()) + " GPU·小时" : " (the decision's " + e.victimCount()
            + " victims together: " + d2(e.totalCostGpuHours()) + " GPU-hours)")
        : "";
    if (lang == Lang.ZH_CN) {
      return "您的作业 " + e.victimJobId() + " 被抢占，为" + who + " " + e.preemptorJobId()
          + " 腾出 GPU。对方得分 " + d2(e.preemptorScore()) + "，是您作业得分 " + d2(e.victimScore())
          + " 的 " + d2(e.scoreRatio()) + " 倍，达到策略的抢占阈值；您作业的保护期已结束" + protection
          + "。迁移您的作业约花费 " + d2(e.victimCostGpuHours()) + " GPU·小时" + others
          + "，低于立即运行对方作业带来的 " + d2(e.gainGpuHours()) + " GPU·小时收益。这不是集群故障，"
          + "作业会自动重新排队，请勿重复提交。（策略版本 " + e.policyVersion() + "）";
    }
    return "Your job " + e.victimJobId() + " was preempted to make room for " + who + " "
        + e.preemptorJobId() + ". Its score " + d2(e.preemptorScore()) + " is "
        + d2(e.scoreRatio()) + "x your job's " + d2(e.victimScore())
        + ", which meets the policy's preemption threshold, and your job's protection window had"
        + " ended" + protection + ". Moving your job costs about " + d2(e.victimCostGpuHours())
        + " GPU-hours" + others + ", less than the " + d2(e.gainGpuHours())
        + " GPU-hours gained by running " + e.preemptorJobId() + " now. This is not a cluster fault: your job is"
        + " re-queued automatically, please do not resubmit it. (policy " + e.policyVersion() + ")";
  }

  /** What compensation applies to a preempted job (P6), or "none". */
  public static String compensation(double queueBoost, Instant retryAfter, boolean sharedPool,
      ZoneId zone, Lang lang) {
    List<String> parts = new ArrayList<>();
    boolean zh = lang == Lang.ZH_CN;
    if (queueBoost > 0) {
      parts.add(zh ? "重新排队时优先级提升 +" + d2(queueBoost)
          : "a queue boost of +" + d2(queueBoost) + " when it is re-queued");
    }
    if (retryAfter != null) {
      parts.add(zh ? "自 " + time(retryAfter, zone) + " 起的低峰期重试"
          : "an off-peak retry from " + time(retryAfter, zone));
    }
    if (sharedPool) {
      parts.add(zh ? "可回退到共享资源池运行" : "it may fall back to the shared pool");
    }
    if (parts.isEmpty()) {
      return zh ? "无" : "none";
    }
    return String.join(zh ? "；" : "; ", parts);
  }

  /** The reason line of a RESUMED notice. */
  public static String resumed(String jobId, int gpus, Lang lang) {
    return lang == Lang.ZH_CN
        ? "您的作业 " + jobId + " 已在 " + gpus + " 块 GPU 上从检查点恢复运行。"
        : "Your job " + jobId + " resumed from its checkpoint on " + gpus + " GPU(s).";
  }

  /** The reason line of a RECLAIMED notice (idle reclamation, Q7). */
  public static String reclaimed(String jobId, String why, Lang lang) {
    return lang == Lang.ZH_CN
        ? "您的作业 " + jobId + " 的 GPU 因长期空闲被回收：" + why + "。作业已做检查点，可随时重新提交。"
        : "The GPUs of your job " + jobId + " were reclaimed because they sat idle: " + why
            + ". The job was checkpointed first.";
  }

  /**
   * The reason line of a SHRUNK notice (Q7, enacted): the job was checkpointed and restarts from
   * its checkpoint on {@code gpus} GPUs, with its expected run time stretched to
   * {@code runSeconds} (null when unknown).
   */
  public static String shrunk(String jobId, int gpus, Long runSeconds, String why, Lang lang) {
    boolean run = runSeconds != null && runSeconds > 0;
    if (lang == Lang.ZH_CN) {
      return "您的作业 " + jobId + " 已缩减至 " + gpus + " 块 GPU：" + why + "。作业已做检查点，将从检查点在 "
          + gpus + " 块 GPU 上重新运行" + (run ? "；GPU 减少后预计运行时长约 " + duration(runSeconds, lang)
              + "（按减少的 GPU 数相应延长）" : "") + "。这不是集群故障，请勿重复提交。";
    }
    return "Your job " + jobId + " was shrunk to " + gpus + " GPU(s): " + why + ". It was"
        + " checkpointed and restarts from its checkpoint on " + gpus + " GPU(s)"
        + (run ? "; on fewer GPUs its expected run time is now about " + duration(runSeconds, lang)
            + " (stretched by the GPUs it gave up)" : "")
        + ". This is not a cluster fault: please do not resubmit it.";
  }

  /**
   * The reason line of a PREEMPTED notice no decision explains (placement's own reason for the
   * eviction it applied).
   */
  public static String preemptedUnexplained(String jobId, String why, Lang lang) {
    return lang == Lang.ZH_CN
        ? "您的作业 " + jobId + " 被抢占：" + why + "。作业已先做检查点，会自动重新排队，请勿重复提交。"
        : "Your job " + jobId + " was preempted: " + why + ". It was checkpointed first and is"
            + " re-queued automatically; please do not resubmit it.";
  }

  /** The reason line of a PREEMPTED notice for a Q3 guarantee reclaim, in quota's words. */
  public static String guaranteeReclaimed(String jobId, String why, String policyVersion,
      Lang lang) {
    return lang == Lang.ZH_CN
        ? "您的作业 " + jobId + " 被抢占：它从共享资源池借用的 GPU 被收回，归还给低于保障配额的队列（Q3）：" + why
            + "。作业已先做检查点，会自动重新排队，请勿重复提交。（策略版本 " + policyVersion + "）"
        : "Your job " + jobId + " was preempted: the GPUs it borrowed from the shared pool were"
            + " taken back for a queue below its guaranteed quota (Q3): " + why + ". It was"
            + " checkpointed first and is re-queued automatically; please do not resubmit it."
            + " (policy " + policyVersion + ")";
  }

  /** A run time in hours and minutes, e.g. {@code 20 h 00 min} / {@code 20 小时 00 分钟}. */
  public static String duration(long seconds, Lang lang) {
    long minutes = (seconds + 59) / 60;
    String m = String.format(Locale.ROOT, "%02d", minutes % 60);
    return lang == Lang.ZH_CN ? minutes / 60 + " 小时 " + m + " 分钟" : minutes / 60 + " h " + m + " min";
  }

  /** The reason line of a QUOTA_REQUEST_ACK notice. */
  public static String quotaAck(String requestId, String tenant, double gpus, Lang lang) {
    return lang == Lang.ZH_CN
        ? "已收到您为租户 " + tenant + " 申请 " + d2(gpus) + " 块保障 GPU 配额的请求（编号 "
            + requestId + "），配额管理员会尽快处理。"
        : "We received your request " + requestId + " for " + d2(gpus)
            + " more guaranteed GPUs for tenant " + tenant + "; a quota administrator will review it.";
  }

  private static String rightWords(String right, Lang lang) {
    boolean zh = lang == Lang.ZH_CN;
    if (right == null) {
      return zh ? "拥有抢占权的作业" : "a job with the right to preempt,";
    }
    if (right.startsWith("TENANT:")) {
      String t = right.substring("TENANT:".length());
      return zh ? "拥有抢占权的租户 " + t + " 的作业" : "a job of tenant " + t + " (which holds the right to preempt),";
    }
    return switch (right) {
      case "CRITICAL" -> zh ? "关键发布/评测作业" : "a critical release/evaluation job,";
      case "ONLINE_INFERENCE" -> zh ? "在线推理作业" : "the online inference job";
      case "BATCH_INFERENCE" -> zh ? "批量推理作业" : "the batch inference job";
      case "TRAINING" -> zh ? "训练作业" : "the training job";
      case "EXPLORATORY_TRAINING" -> zh ? "探索性训练作业" : "the exploratory training job";
      default -> zh ? right + " 类作业" : "the " + right + " job";
    };
  }

  static String d2(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }
}
