#include "studio/application_icon.h"

namespace lathe::studio {

QList<int> applicationIconSizes() {
  return {16, 24, 32, 48, 64, 128, 256};
}

QIcon applicationIcon() {
  QIcon icon;
  for (int size : applicationIconSizes())
    icon.addFile(QStringLiteral(":/lathe/icons/lathe-studio-%1.png").arg(size), QSize(size, size));
  return icon;
}

}  // namespace lathe::studio
