// SPDX-License-Identifier: GPL-2.0-or-later
// Placeholder: being written.
#include "hostonly.h"
