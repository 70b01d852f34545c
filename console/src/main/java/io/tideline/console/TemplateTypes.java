package io.tideline.console;

import io.quarkus.qute.TemplateData;
import io.tideline.console.view.FragmentationView;
import io.tideline.console.view.Page;
import io.tideline.console.view.PreemptionView;
import io.tideline.console.view.QueueView;
import io.tideline.console.view.QuotaView;
import io.tideline.console.view.TideView;
import io.tideline.platform.explain.DecisionTrail;

/** The view models the templates read (the views stay free of Quarkus). */
@TemplateData(target = Page.class)
@TemplateData(target = TideView.Point.class)
@TemplateData(target = TideView.ForecastRow.class)
@TemplateData(target = QueueView.Row.class)
@TemplateData(target = PreemptionView.Row.class)
@TemplateData(target = PreemptionView.VictimRow.class)
@TemplateData(target = PreemptionView.EvictionRow.class)
@TemplateData(target = PreemptionView.NoticeRow.class)
@TemplateData(target = QuotaView.Node.class)
@TemplateData(target = QuotaView.Bill.class)
@TemplateData(target = FragmentationView.Point.class)
@TemplateData(target = FragmentationView.Domain.class)
@TemplateData(target = FragmentationView.NodeRow.class)
@TemplateData(target = DecisionTrail.Line.class)
@TemplateData(target = DecisionTrail.Step.class)
@TemplateData(target = DecisionTrail.Entry.class)
@TemplateData(target = Chart.Series.class)
final class TemplateTypes {
  private TemplateTypes() {}
}
