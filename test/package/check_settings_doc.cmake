# SPDX-License-Identifier: Apache-2.0
# docs/settings.md is what `tkrt --settings-markdown` prints from the settings table
# (core/settings.c). Regenerate with: tkrt --settings-markdown > docs/settings.md
# Usage: cmake -DTKRT=<tool> -DDOC=<docs/settings.md> -DOUT=<scratch file> -P check_settings_doc.cmake
execute_process(COMMAND ${TKRT} --settings-markdown OUTPUT_FILE ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tkrt --settings-markdown failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT} ${DOC} RESULT_VARIABLE differ)
if(NOT differ EQUAL 0)
  execute_process(COMMAND diff -u ${DOC} ${OUT})
  message(FATAL_ERROR "${DOC} differs from the settings table (core/settings.c): run\n"
                      "  tkrt --settings-markdown > docs/settings.md")
endif()
message(STATUS "docs/settings.md matches the settings table")
