// SPDX-License-Identifier: GPL-3.0-or-later
// The design review as a document (what File ▸ Export Design Review and `stackscope-cli report`
// write): a title page with provenance, the key metrics, then each result view's section. Two
// writers render it: one self-contained HTML page (figures as embedded PNGs) and a PDF of
// 16:9 pages for projection (plots drawn as vectors, one figure per page).
//
// Reproducible: the same document gives byte-identical files. Neither writer stamps a date or a
// random identifier; the PDF's creation date and XMP identifiers, which Qt's PDF engine fills
// from the clock and a random UUID, are replaced by fixed ones (1970-01-01 and a UUID derived
// from the document's text) of the same length, so the file's cross-reference offsets hold.
// Across processes this also needs Qt's hash seed fixed (QHashSeed::setDeterministicGlobalSeed,
// as both programs' main() do): the writer lists the embedded fonts in hash order.
#pragma once

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include "stackscope/ui/review_section.hpp"

namespace stackscope::ui {

using ReviewRows = QList<QPair<QString, QString>>;  // label, value (plain text)

struct ReviewDocument {
  QString title;     // the design's name
  QString subtitle;  // the header line: model, devices, plan
  // Where the design's parts come from: project, device, system, model and runtime presets with
  // their sources, the validation table, the tool version.
  ReviewRows provenance;
  ReviewRows metrics;  // key metrics with the validation envelope
  QString powerTitle;
  ReviewRows power;  // decode power per die and layer
  QList<ReviewSection> sections;  // result views in tab order
  QString projectJson;            // the design as a project file
  QString version;                // StackScope's version
};

// The whole review as one HTML page.
QString reviewHtml(const ReviewDocument& doc);

// The review as a PDF of 16:9 pages (254 mm x 142.9 mm, PowerPoint's widescreen size): a title
// page with provenance, the key metrics and power, then per section a page of its text and
// tables (continued over as many pages as the rows need) and one page per figure; sections
// with nothing computed are listed on one closing page. Written atomically; false and `error`
// on failure. Returns the page titles in `pages` (for the CLI's listing and the tests).
bool writeReviewPdf(const ReviewDocument& doc, const QString& file, QStringList* pages,
                    QString* error);

}  // namespace stackscope::ui
