// The studio's icon (resources/icons/, rendered from lathe-studio.svg) at every
// size the icon theme gets on install, for the window, the task bar and dialogs.
#pragma once

#include <QIcon>
#include <QList>

namespace lathe::studio {

// The sizes of the bundled PNGs, in pixels, smallest first.
QList<int> applicationIconSizes();

// The bundled icon, one PNG per size.
QIcon applicationIcon();

}  // namespace lathe::studio
