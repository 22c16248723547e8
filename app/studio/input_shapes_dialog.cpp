#include "studio/input_shapes_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QVBoxLayout>

namespace lathe::studio {

namespace {

QString symbolName(const driver::DeclaredInput& input, size_t dim) {
  return input.symbols[dim].empty() ? QStringLiteral("?")
                                    : QString::fromStdString(input.symbols[dim]);
}

}  // namespace

Shape parseTypedShape(const QString& text, const driver::DeclaredInput& input, QString* problem) {
  QString body = text.trimmed();
  if (body.startsWith(QLatin1Char('['))) body.remove(0, 1);
  if (body.endsWith(QLatin1Char(']'))) body.chop(1);
  const QStringList parts =
      body.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts);
  Shape shape;
  for (qsizetype i = 0; i < parts.size(); ++i) {
    const auto dim = static_cast<size_t>(i);
    if (parts[i] == QLatin1String("?")) {
      *problem =
          dim < input.symbols.size()
              ? QObject::tr("give a size for dimension %1 (%2)").arg(i).arg(symbolName(input, dim))
              : QObject::tr("give a size for dimension %1").arg(i);
      return {};
    }
    bool ok = false;
    const qlonglong size = parts[i].toLongLong(&ok);
    if (!ok || size <= 0) {
      *problem =
          QObject::tr("'%1' in dimension %2 is not a positive whole number").arg(parts[i]).arg(i);
      return {};
    }
    shape.push_back(size);
  }
  if (shape.empty()) {
    *problem = QObject::tr("give the sizes, separated by commas");
    return {};
  }
  const std::string mismatch = driver::shape_mismatch(input, shape);
  if (!mismatch.empty()) {
    *problem = QString::fromStdString(mismatch);
    return {};
  }
  problem->clear();
  return shape;
}

QString typedShapeText(const driver::DeclaredInput& known) {
  QStringList sizes;
  for (int64_t d : known.dims) sizes << (d < 0 ? QStringLiteral("?") : QString::number(d));
  return sizes.join(QStringLiteral(", "));
}

QString inputShapesText(const std::map<std::string, Shape>& shapes) {
  QStringList entries;
  for (const auto& [name, shape] : shapes) {
    QStringList sizes;
    for (int64_t d : shape) sizes << QString::number(d);
    entries << QStringLiteral("%1:[%2]").arg(QString::fromStdString(name),
                                             sizes.join(QLatin1Char(',')));
  }
  return entries.join(QLatin1Char(' '));
}

InputShapesDialog::InputShapesDialog(const QString& modelName,
                                     std::vector<driver::DeclaredInput> open, QWidget* parent)
    : QDialog(parent), open_(std::move(open)) {
  setWindowTitle(tr("Input Shapes"));
  setObjectName(QStringLiteral("inputShapesDialog"));

  auto* intro = new QLabel(
      tr("%1 leaves the sizes of some input dimensions open, and Lathe compiles for fixed "
         "shapes. Give a size for each '?' (the batch is 1 unless you change it); a NAME.io.npz "
         "beside the model gives them too.")
          .arg(modelName.toHtmlEscaped()));
  intro->setWordWrap(true);

  auto* form = new QFormLayout;
  for (const driver::DeclaredInput& input : open_) {
    auto* edit = new QLineEdit(typedShapeText(input));
    edit->setObjectName(QStringLiteral("inputShape_") + QString::fromStdString(input.name));
    const QString declared = QString::fromStdString(input.to_string());
    edit->setToolTip(tr("The model declares %1").arg(declared));
    edit->setPlaceholderText(tr("sizes separated by commas"));
    connect(edit, &QLineEdit::textChanged, this, &InputShapesDialog::check);
    auto* label = new QLabel(
        QStringLiteral("<b>%1</b><br><small>%2</small>")
            .arg(QString::fromStdString(input.name).toHtmlEscaped(), declared.toHtmlEscaped()));
    label->setBuddy(edit);
    form->addRow(label, edit);
    edits_.push_back(edit);
  }

  problem_ = new QLabel;
  problem_->setObjectName(QStringLiteral("inputShapesProblem"));
  problem_->setWordWrap(true);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
  openButton_ = buttons->addButton(tr("&Open"), QDialogButtonBox::AcceptRole);
  openButton_->setObjectName(QStringLiteral("openWithShapesButton"));
  openButton_->setDefault(true);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(intro);
  layout->addLayout(form);
  layout->addWidget(problem_);
  layout->addWidget(buttons);
  resize(560, sizeHint().height());
  check();
  // The first line with a size to give.
  for (QLineEdit* edit : edits_)
    if (edit->text().contains(QLatin1Char('?')) || edit->text().isEmpty()) {
      edit->setFocus();
      break;
    }
}

void InputShapesDialog::check() {
  QString problems;
  for (size_t i = 0; i < open_.size(); ++i) {
    QString problem;
    parseTypedShape(edits_[i]->text(), open_[i], &problem);
    if (!problem.isEmpty()) {
      problems = QStringLiteral("%1: %2").arg(QString::fromStdString(open_[i].name), problem);
      break;
    }
  }
  problem_->setText(problems);
  openButton_->setEnabled(problems.isEmpty());
}

std::map<std::string, Shape> InputShapesDialog::inputShapes() const {
  std::map<std::string, Shape> shapes;
  for (size_t i = 0; i < open_.size(); ++i) {
    QString problem;
    const Shape shape = parseTypedShape(edits_[i]->text(), open_[i], &problem);
    if (problem.isEmpty()) shapes[open_[i].name] = shape;
  }
  return shapes;
}

}  // namespace lathe::studio
