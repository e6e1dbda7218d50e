/* dataflow_nav: mode 9's slice navigation (see dataflow_nav.c). */
#ifndef ASMSPY_TUI_DATAFLOW_NAV_H
#define ASMSPY_TUI_DATAFLOW_NAV_H

#include "tui/app.h"

/* A key on the data flow view: 1 when it was a navigation key (←/→ pick a
 * read of the selected step, Enter walks to its defining step, Backspace
 * walks back). m is the pane's model. */
int tui_df_key(struct tui_live *lv, struct tui_model *m, int ch);
/* The selected step's selected read and where it was defined ("" when the
 * cursor is not on a step). */
void tui_df_status(struct tui_live *lv, struct tui_model *m, char *buf, size_t cap);
/* Drop the parsed record (a new session, the view closing). */
void tui_df_reset(struct tui_live *lv);

#endif
