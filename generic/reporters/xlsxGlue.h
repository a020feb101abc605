/*
 * xlsxGlue.h --
 *
 *	The libxlsxwriter calls of ReporterSpreadsheet, behind a table that
 *	librubiconxlsx.so (unix/xlsxGlue.c, linked with libxlsxwriter)
 *	fills.  The reporter loads that object (core/glue.h) when it first
 *	writes a workbook, so that a run writing none pays nothing for
 *	linking libxlsxwriter, minizip and libcrypto at start-up.
 */

#ifndef RB_XLSX_GLUE_H
#define RB_XLSX_GLUE_H

#include <xlsxwriter.h>

#define RB_XLSX_GLUE_VERSION 1
#define RB_XLSX_GLUE_LIB "librubiconxlsx.so"
#define RB_XLSX_GLUE_SYM "RbXlsxGlueTable"

typedef struct RbXlsxGlue {
    int version;		/* RB_XLSX_GLUE_VERSION */
    __typeof__(&workbook_new_opt) workbook_new_opt;
    __typeof__(&workbook_add_worksheet) workbook_add_worksheet;
    __typeof__(&workbook_add_format) workbook_add_format;
    __typeof__(&workbook_close) workbook_close;
    __typeof__(&format_set_bold) format_set_bold;
    __typeof__(&worksheet_set_column) worksheet_set_column;
    __typeof__(&worksheet_write_number) worksheet_write_number;
    __typeof__(&worksheet_write_string) worksheet_write_string;
    __typeof__(&lxw_strerror) lxw_strerror;
} RbXlsxGlue;

typedef const RbXlsxGlue *(RbXlsxGlueTableProc)(void);

#endif /* RB_XLSX_GLUE_H */
