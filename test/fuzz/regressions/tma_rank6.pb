
;
%
k".version 8.7
.target sm_90a
0Z *J

