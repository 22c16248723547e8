// Asks for the shapes of a model's inputs that the model leaves symbolic and
// nothing else fixes (no NAME.io.npz array, not a batch dimension), once per
// opening: one line per such input, prefilled with what is known (fixed
// sizes, a batch of 1) and '?' for the rest. Open is enabled once every line
// is a shape that fits the model; the main window then loads the model with
// these shapes, and Cancel leaves the model shown before.
#pragma once

#include <QDialog>
#include <QString>
#include <map>
#include <string>
#include <vector>

#include "driver/model_loader.h"
#include "ir/tensor.h"

class QLabel;
class QLineEdit;
class QPushButton;

namespace lathe::studio {

// A shape typed for `input` ("1, 3, 640, 640", brackets optional): the
// shape, or in *problem why it is none (a '?' left, not a number, another
// rank or a fixed size changed).
Shape parseTypedShape(const QString& text, const driver::DeclaredInput& input, QString* problem);

// What the line for `known` starts with: its sizes, '?' where none is known.
QString typedShapeText(const driver::DeclaredInput& known);

// --input-shapes' text for `shapes` ("x:[1,3,640,640] mask:[1,64]"), for the log.
QString inputShapesText(const std::map<std::string, Shape>& shapes);

class InputShapesDialog : public QDialog {
  Q_OBJECT

 public:
  // `open`: the inputs left open, as far as known (driver::OpenInputShapesError).
  InputShapesDialog(const QString& modelName, std::vector<driver::DeclaredInput> open,
                    QWidget* parent = nullptr);

  // The shapes typed, by input name; complete once Open is enabled.
  std::map<std::string, Shape> inputShapes() const;

  int inputCount() const { return static_cast<int>(edits_.size()); }
  QLineEdit* shapeEdit(int row) const { return edits_.at(static_cast<size_t>(row)); }
  QPushButton* openButton() const { return openButton_; }
  QLabel* problemLine() const { return problem_; }

 private:
  void check();

  std::vector<driver::DeclaredInput> open_;
  std::vector<QLineEdit*> edits_;
  QPushButton* openButton_ = nullptr;
  QLabel* problem_ = nullptr;
};

}  // namespace lathe::studio
